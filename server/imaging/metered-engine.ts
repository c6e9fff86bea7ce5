/**
 * Counts what the engine does, by engine and operation: how long each call took and how it ended (`ok`, or the
 * error code it failed with). It wraps whichever engine runs, so remote and built-in engines are measured alike.
 */
import { AppError } from '../errors.js';
import type { Metrics } from '../observability/metrics.js';
import type { EngineImage, ImageEngine } from './engine.js';

type EngineMetrics = Pick<Metrics, 'engineSeconds' | 'engineOperations'>;

export function meteredEngine(engine: ImageEngine, metrics: EngineMetrics): ImageEngine {
  const name = engine.capabilities.engine;
  async function measured<T extends EngineImage>(operation: string, work: () => Promise<T>): Promise<T> {
    const stop = metrics.engineSeconds.startTimer({ engine: name, operation });
    const started = performance.now();
    try {
      const result = await work();
      metrics.engineOperations.inc({ engine: name, operation, outcome: 'ok' });
      // The picture carries its own timing to the row that stores it, for the fleet report's percentiles.
      result.engineMs = Math.round(performance.now() - started);
      return result;
    } catch (error) {
      const outcome = error instanceof AppError ? error.code : 'failed';
      metrics.engineOperations.inc({ engine: name, operation, outcome });
      throw error;
    } finally {
      stop();
    }
  }
  return {
    capabilities: engine.capabilities,
    providerSlots: engine.providerSlots,
    inspect: (input) => engine.inspect(input),
    preview: (input, maxEdge) => engine.preview(input, maxEdge),
    stage: (input, options) => measured('stage', () => engine.stage(input, options)),
    declutter: (input, options) => measured('declutter', () => engine.declutter(input, options)),
    enhance: (input) => measured('enhance', () => engine.enhance(input)),
    placeProducts: (input, options) => measured('place_products', () => engine.placeProducts(input, options)),
  };
}

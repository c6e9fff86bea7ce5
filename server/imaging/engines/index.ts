/**
 * ENGINE chooses what draws staged images: the built-in sharp engine, or a remote provider behind
 * the same ImageEngine seam. Every charge, hold, job, webhook and claim rule is the callers' and holds for all.
 */
import type { Config } from '../../env.js';
import type { ImageEngine } from '../engine.js';
import { createImageEngine } from '../sharp-engine.js';
import { comfyUiProvider } from './comfyui.js';
import { openAiProvider } from './openai.js';
import { RemoteCalls, RemoteEngine, type StagingProvider } from './remote-engine.js';
import { replicateProvider } from './replicate.js';

export { EngineRejected, EngineUnavailable } from './failures.js';

/** The engine the configuration names; a remote one reads its files (a ComfyUI workflow) now, failing at start. */
export function createEngine(config: Pick<Config, 'engine' | 'allowPrivateNetwork'>): ImageEngine {
  const builtin = createImageEngine();
  const { engine } = config;
  if (engine.name === 'builtin') return builtin;
  let provider: StagingProvider;
  // Pictures a provider names by URL are fetched under the operator's network rule; ComfyUI is the operator's own
  // server, usually on a private network, so it is always reachable.
  let allowPrivateNetwork = config.allowPrivateNetwork;
  switch (engine.name) {
    case 'replicate':
      provider = replicateProvider(engine);
      break;
    case 'openai':
      provider = openAiProvider(engine);
      break;
    case 'comfyui':
      provider = comfyUiProvider(engine);
      allowPrivateNetwork = true;
      break;
  }
  const calls = new RemoteCalls({
    timeoutMs: engine.timeoutMs,
    concurrency: engine.concurrency,
    network: { allowPrivateNetwork },
  });
  return new RemoteEngine(provider, builtin, calls);
}

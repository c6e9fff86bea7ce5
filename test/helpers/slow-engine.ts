import type { ImageEngine } from '../../server/imaging/engine.js';

/** `real` with some of its methods replaced: a failing or slow engine for one test. */
export function engineWith(real: ImageEngine, overrides: Partial<ImageEngine>): ImageEngine {
  return {
    capabilities: real.capabilities,
    inspect: (input) => real.inspect(input),
    declutter: (input, options) => real.declutter(input, options),
    stage: (input, options) => real.stage(input, options),
    enhance: (input) => real.enhance(input),
    preview: (input, maxEdge) => real.preview(input, maxEdge),
    placeProducts: (input, options) => real.placeProducts(input, options),
    ...overrides,
  };
}

/** `real`, waiting `delayMs` before each stage and enhance, so a test can kill a process while it works. */
export function slowedDown(real: ImageEngine, delayMs: number): ImageEngine {
  const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return engineWith(real, {
    stage: async (input, options) => {
      await pause();
      return real.stage(input, options);
    },
    enhance: async (input) => {
      await pause();
      return real.enhance(input);
    },
  });
}

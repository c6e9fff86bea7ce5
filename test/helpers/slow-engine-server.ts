/**
 * The real server (startServer, as `npm start` runs it) with an image engine that waits `argv[2]` ms before each
 * stage and enhance, so a test can have image requests holding credits when it kills the process. Test-only: the
 * delay is an argument of this entry script, not a setting of the product.
 */
import { loadConfigOrExit } from '../../server/env.js';
import type { ImageEngine } from '../../server/imaging/engine.js';
import { startServer } from '../../server/main.js';

const delayMs = Number(process.argv[2] ?? '0');
const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));

const running = await startServer(loadConfigOrExit());
const real: ImageEngine = running.services.engine;
running.services.engine = {
  inspect: (input) => real.inspect(input),
  stage: async (input, options) => (await pause(), real.stage(input, options)),
  enhance: async (input) => (await pause(), real.enhance(input)),
  placeProducts: (input, options) => real.placeProducts(input, options),
};
console.log(`slow-engine server listening on port ${running.port} (engine delay ${delayMs} ms)`);

/**
 * The real server (startServer, as `npm start` runs it) with an image engine that waits `argv[2]` ms before each
 * stage and enhance, so a test can have image requests holding credits when it kills the process. Test-only: the
 * delay is an argument of this entry script, not a setting of the product.
 */
import { loadConfigOrExit } from '../../server/env.js';
import { startServer } from '../../server/main.js';
import { slowedDown } from './slow-engine.js';

const delayMs = Number(process.argv[2] ?? '0');

const running = await startServer(loadConfigOrExit());
running.services.engine = slowedDown(running.services.engine, delayMs);
console.log(`slow-engine server listening on port ${running.port} (engine delay ${delayMs} ms)`);

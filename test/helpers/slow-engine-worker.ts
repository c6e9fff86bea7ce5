/**
 * The real worker (startWorker, as `npm run worker` runs it) with an image engine that waits `argv[2]` ms before
 * each stage and enhance, so a test can kill it in the middle of a job. Test-only, like slow-engine-server.ts.
 */
import { loadConfigOrExit } from '../../server/env.js';
import { createImageEngine } from '../../server/imaging/sharp-engine.js';
import { startWorker } from '../../server/worker-main.js';
import { slowedDown } from './slow-engine.js';

const delayMs = Number(process.argv[2] ?? '0');

await startWorker(loadConfigOrExit(), { engine: slowedDown(createImageEngine(), delayMs) });
console.log(`slow-engine worker running (engine delay ${delayMs} ms)`);

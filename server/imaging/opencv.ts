/**
 * OpenCV's WebAssembly build (@techstark/opencv-js), loaded once per process on first use (about 250 ms and 100 MB of
 * WebAssembly memory): the fidelity check registers an engine's output to the photo with its ORB features and RANSAC
 * homography. Single-threaded, no GPU; everything it allocates must be freed with `.delete()`.
 */
import { createRequire } from 'node:module';
import type * as OpenCv from '@techstark/opencv-js';

export type Cv = typeof OpenCv;

let loading: Promise<{ cv: Cv }> | undefined;

/** How long the WebAssembly may take to start before the check gives up (it takes about 250 ms). */
const START_TIMEOUT_MS = 30_000;

/**
 * The initialised module. Loaded with require (it is a CommonJS bundle; bundlers and test runners then leave its 10 MB
 * alone). Wrapped in an object: the module itself is a thenable that `await` would chase.
 */
export function openCv(): Promise<{ cv: Cv }> {
  loading ??= new Promise<{ cv: Cv }>((resolve, reject) => {
    const cv = createRequire(import.meta.url)('@techstark/opencv-js') as Cv & { onRuntimeInitialized?: () => void };
    const ready = () => (cv as { Mat?: unknown }).Mat !== undefined;
    if (ready()) return resolve({ cv });
    const started = Date.now();
    const previous = cv.onRuntimeInitialized;
    cv.onRuntimeInitialized = () => {
      previous?.();
      resolve({ cv });
    };
    // The runtime may have started between the require and the callback being set: look again until it has.
    const poll = setInterval(() => {
      if (ready()) {
        clearInterval(poll);
        resolve({ cv });
      } else if (Date.now() - started > START_TIMEOUT_MS) {
        clearInterval(poll);
        reject(new Error('OpenCV did not start'));
      }
    }, 20);
    poll.unref();
  });
  return loading;
}

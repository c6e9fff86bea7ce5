/**
 * OpenCV's WebAssembly build (@techstark/opencv-js), loaded once per process on first use (about 250 ms and 100 MB of
 * WebAssembly memory): the fidelity check registers an engine's output to the photo with its ORB features and RANSAC
 * homography. Single-threaded, no GPU; everything it allocates must be freed with `.delete()`.
 */
import type * as OpenCv from '@techstark/opencv-js';

export type Cv = typeof OpenCv;

let loading: Promise<{ cv: Cv }> | undefined;

/** The initialised module. Wrapped in an object: the module itself is a thenable that `await` would chase. */
export function openCv(): Promise<{ cv: Cv }> {
  loading ??= (async () => {
    const imported = (await import('@techstark/opencv-js')) as unknown as { default?: Cv } & Cv;
    const cv = (imported.default ?? imported) as Cv & { onRuntimeInitialized?: () => void };
    if (!(cv as { Mat?: unknown }).Mat)
      await new Promise<void>((resolve) => {
        cv.onRuntimeInitialized = resolve;
      });
    return { cv };
  })();
  return loading;
}

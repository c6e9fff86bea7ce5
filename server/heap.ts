import v8 from 'node:v8';

/**
 * Room for the Buffers of image work between full garbage collections.
 *
 * A staged 12 MP photo allocates tens of megabytes of Buffers (the upload and its parts, the engine's output, the
 * fidelity check's decodes). V8 counts that memory against the old generation's limit, which it sets at about 1.4×
 * the live heap, so with the server's ~57 MB live heap (the dashboard build, the API document, the schemas) every
 * ~25 MB of Buffers started a full mark-compact of the whole heap: about 0.7 per image and 40–60 ms of CPU on the
 * main and helper threads, most of what the API added to the bare pipeline in bench:stage. With the limit at 3× the
 * live heap the Buffers die between collections: 0.1 mark-compacts per image, and the heap stays far below any
 * size that matters next to the pixels.
 */
export function giveBuffersHeadroom(): void {
  v8.setFlagsFromString('--heap-growing-percent=200');
}

import v8 from 'node:v8';

/**
 * Room for the Buffers of image work between full garbage collections.
 *
 * A staged 12 MP photo allocates tens of megabytes of Buffers (the upload and its parts, the engine's output, the
 * fidelity check's decodes). V8 counts that memory against the old generation's limit, which it sets at about 1.4×
 * the live heap, so with the server's ~57 MB live heap (the dashboard build, the API document, the schemas) every
 * ~25 MB of Buffers started a full mark-compact of the whole heap: about 0.7 per image and 40–60 ms of CPU on the
 * main and helper threads, most of what the API added to the bare pipeline in bench:stage. With the limit at 2× the
 * live heap most Buffers die between collections: 0.1–0.2 mark-compacts per image, for about 50 MB more RSS per
 * process (3× saved no more CPU and cost about 250 MB a process in bench:soak).
 */
export function giveBuffersHeadroom(): void {
  v8.setFlagsFromString('--heap-growing-percent=100');
}

import { describe, expect, it } from 'vitest';
import { sharedFreshReads } from '../../db/shared-reads.js';

/** A read whose answers the test releases one at a time; each answer is the number of the read that gave it. */
function controlledReads() {
  const pending: Array<{ key: string; finish: (fail?: Error) => void }> = [];
  let reads = 0;
  const read = (key: string) =>
    new Promise<string>((resolve, reject) => {
      const number = ++reads;
      pending.push({ key, finish: (fail) => (fail ? reject(fail) : resolve(`${key}#${number}`)) });
    });
  return {
    read,
    reads: () => reads,
    finishNext: async (fail?: Error) => {
      const next = pending.shift();
      if (!next) throw new Error('no read in flight');
      next.finish(fail);
      // Let the answers and the start of the next read run.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('Shared fresh reads', () => {
  it('serves the callers that arrive during a read with the next read, never with the one in flight', async () => {
    const reads = controlledReads();
    const get = sharedFreshReads(reads.read);
    const first = get('k');
    const during = [get('k'), get('k'), get('k')];
    expect(reads.reads()).toBe(1);
    await reads.finishNext();
    expect(await first).toBe('k#1');
    // The three that came while read 1 was in flight share read 2, started when read 1 ended.
    expect(reads.reads()).toBe(2);
    await reads.finishNext();
    expect(await Promise.all(during)).toEqual(['k#2', 'k#2', 'k#2']);
    // Nothing in flight: the next caller starts a read of its own.
    const later = get('k');
    expect(reads.reads()).toBe(3);
    await reads.finishNext();
    expect(await later).toBe('k#3');
  });

  it('reads each key on its own', async () => {
    const reads = controlledReads();
    const get = sharedFreshReads(reads.read);
    const a = get('a');
    const b = get('b');
    expect(reads.reads()).toBe(2);
    await reads.finishNext();
    await reads.finishNext();
    expect([await a, await b]).toEqual(['a#1', 'b#2']);
  });

  it('fails only the callers of a failed read, and reads again for those who waited', async () => {
    const reads = controlledReads();
    const get = sharedFreshReads(reads.read);
    const first = get('k');
    const second = get('k');
    const failed = expect(first).rejects.toThrow('gone');
    await reads.finishNext(new Error('gone'));
    await failed;
    await reads.finishNext();
    expect(await second).toBe('k#2');
  });
});

import { describe, expect, it } from 'vitest';
import { sharedFreshReads } from '../../db/shared-reads.js';

/**
 * A read whose answers the test releases one at a time. Each read answers every key it was asked for with the key
 * and the number of the read, except the key 'missing'; `batches` lists the keys of each read.
 */
function controlledReads() {
  const pending: Array<(fail?: Error) => void> = [];
  const batches: string[][] = [];
  const read = (keys: string[]) =>
    new Promise<Map<string, string>>((resolve, reject) => {
      const number = batches.push(keys);
      pending.push((fail) =>
        fail
          ? reject(fail)
          : resolve(new Map(keys.filter((key) => key !== 'missing').map((key) => [key, `${key}#${number}`]))),
      );
    });
  return {
    read,
    batches,
    finishNext: async (fail?: Error) => {
      const finish = pending.shift();
      if (!finish) throw new Error('no read in flight');
      finish(fail);
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
    expect(reads.batches).toEqual([['k']]);
    await reads.finishNext();
    expect(await first).toBe('k#1');
    // The three that came while read 1 was in flight share read 2, started when read 1 ended.
    expect(reads.batches).toEqual([['k'], ['k']]);
    await reads.finishNext();
    expect(await Promise.all(during)).toEqual(['k#2', 'k#2', 'k#2']);
    // Nothing in flight: the next caller starts a read of its own.
    const later = get('k');
    expect(reads.batches).toHaveLength(3);
    await reads.finishNext();
    expect(await later).toBe('k#3');
  });

  it('reads every key asked for during a read in the next one, each key once, and answers a missing key with undefined', async () => {
    const reads = controlledReads();
    const get = sharedFreshReads(reads.read);
    const a = get('a');
    const next = [get('b'), get('c'), get('b'), get('missing')];
    await reads.finishNext();
    expect(await a).toBe('a#1');
    expect(reads.batches[1]).toEqual(['b', 'c', 'missing']);
    await reads.finishNext();
    expect(await Promise.all(next)).toEqual(['b#2', 'c#2', 'b#2', undefined]);
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

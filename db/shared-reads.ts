/**
 * Shares the reads of one key among the callers that ask for it at about the same time, without ever handing a
 * caller a result read before it asked. The first caller starts a read; callers that arrive while it is in flight
 * wait for the next read, which starts the moment that one ends and serves all of them together. So what each
 * caller gets is what a statement of its own, sent when it asked, could have returned (a write committed before it
 * asked is seen), and a key asked for by many requests at once costs one statement per round trip instead of one
 * per request. A failed read fails the callers it served; the next read is tried for those who waited.
 */
export function sharedFreshReads<K, R>(read: (key: K) => Promise<R>): (key: K) => Promise<R> {
  type Caller = { resolve(result: R): void; reject(error: unknown): void };
  /** Per key with a read in flight: the callers that arrived after it began. */
  const waiting = new Map<K, Caller[]>();

  function start(key: K, callers: Caller[]): void {
    read(key)
      .then(
        (result) => {
          for (const caller of callers) caller.resolve(result);
        },
        (error: unknown) => {
          for (const caller of callers) caller.reject(error);
        },
      )
      .finally(() => {
        const next = waiting.get(key) ?? [];
        if (next.length === 0) return void waiting.delete(key);
        waiting.set(key, []);
        start(key, next);
      });
  }

  return (key) =>
    new Promise<R>((resolve, reject) => {
      const queue = waiting.get(key);
      if (queue) return void queue.push({ resolve, reject });
      waiting.set(key, []);
      start(key, [{ resolve, reject }]);
    });
}

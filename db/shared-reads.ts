/**
 * Shares reads among the callers that ask at about the same time, without ever handing a caller a result read
 * before it asked. The first caller starts a read of its key; callers that arrive while a read is in flight wait for
 * the next one, which starts the moment that one ends and reads every key they asked for in one statement. So what
 * each caller gets is what a statement of its own, sent when it asked, could have returned (a write committed before
 * it asked is seen), and many requests at once cost one statement per round trip instead of one per request.
 * `readMany` answers the keys it found (absent ones come back undefined). A failed read fails the callers it served;
 * the next read is tried for those who waited.
 */
export function sharedFreshReads<K, R>(
  readMany: (keys: K[]) => Promise<Map<K, R>>,
): (key: K) => Promise<R | undefined> {
  type Caller = { resolve(result: R | undefined): void; reject(error: unknown): void };
  /** Present while a read is in flight: the callers that arrived after it began, by key. */
  let waiting: Map<K, Caller[]> | null = null;

  function start(callers: Map<K, Caller[]>): void {
    waiting = new Map();
    readMany([...callers.keys()])
      .then(
        (results) => {
          for (const [key, forKey] of callers) for (const caller of forKey) caller.resolve(results.get(key));
        },
        (error: unknown) => {
          for (const forKey of callers.values()) for (const caller of forKey) caller.reject(error);
        },
      )
      .finally(() => {
        const next = waiting;
        waiting = null;
        if (next && next.size > 0) start(next);
      });
  }

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const caller = { resolve, reject };
      if (!waiting) return start(new Map([[key, [caller]]]));
      const forKey = waiting.get(key);
      if (forKey) forKey.push(caller);
      else waiting.set(key, [caller]);
    });
}

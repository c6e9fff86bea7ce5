import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Db, type DatabaseHandle, openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createRequestRateLimiter, type RateDecision } from '../../server/limits/request-rate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';

const MINUTE = 60_000;
/** The start of a calendar minute, far from any other test's windows. */
const WINDOW = Date.UTC(2031, 0, 1, 12, 0);

/** Counts the statements sent to the database through `db`. */
function counted(db: Db): { db: Db; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), statements: () => statements };
}

const allowed = (decisions: RateDecision[]) => decisions.filter((decision) => decision.allowed);

describeEachDatabase('The per-key request budget counted in the database', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = openDatabase(database.url);
    await migrateToLatest(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('counts 100 concurrent hits on one key exactly, each with its own place, in fewer statements than hits', async () => {
    const { db, statements } = counted(handle.db);
    const limiter = createRequestRateLimiter(db, { perMinute: 60 });
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => limiter.consume(1, WINDOW + 1_000 + i)));
    expect(allowed(decisions)).toHaveLength(60);
    // Each allowed hit saw a different remaining budget: 59, 58, … 0, as if counted one statement at a time.
    expect(
      allowed(decisions)
        .map((decision) => decision.remaining)
        .sort((a, b) => b - a),
    ).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.remaining === 0)).toBe(true);
    expect(statements()).toBeLessThan(100);
    const row = await handle.db
      .selectFrom('rate_limit_windows')
      .select(['hits', 'window_start'])
      .where('bucket', '=', 'key:1')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ hits: 100, window_start: WINDOW });
  });

  it('shares one budget between processes: two limiters on one database admit exactly the limit between them', async () => {
    const first = createRequestRateLimiter(handle.db, { perMinute: 70 });
    const otherProcess = openDatabase(database.url);
    const second = createRequestRateLimiter(otherProcess.db, { perMinute: 70 });
    const at = WINDOW + 2_000;
    try {
      const decisions = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? first : second).consume(2, at)),
      );
      expect(allowed(decisions)).toHaveLength(70);
    } finally {
      await otherProcess.close();
    }
  });

  it('starts a new window at the next minute, also for hits that waited while the minute turned', async () => {
    const limiter = createRequestRateLimiter(handle.db, { perMinute: 5 });
    const late = WINDOW + 59_999;
    const next = WINDOW + MINUTE + 10;
    const decisions = await Promise.all([
      ...Array.from({ length: 3 }, () => limiter.consume(3, late)),
      ...Array.from({ length: 4 }, () => limiter.consume(3, next)),
    ]);
    expect(
      decisions
        .slice(0, 3)
        .map((decision) => decision.remaining)
        .sort(),
    ).toEqual([2, 3, 4]);
    expect(
      decisions
        .slice(3)
        .map((decision) => decision.remaining)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(decisions.slice(3).every((decision) => decision.resetSeconds === 60)).toBe(true);
    const again = await limiter.consume(3, next + 1_000);
    expect(again).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(3, next + 2_000)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('fails every hit of a batch whose statement failed, and counts the next ones', async () => {
    let failNext = true;
    const failing: KyselyPlugin = {
      transformQuery: (args) => {
        if (failNext) {
          failNext = false;
          throw new Error('the database went away');
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const limiter = createRequestRateLimiter(handle.db.withPlugin(failing), { perMinute: 10 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => limiter.consume(4, WINDOW + 3_000)));
    expect(results[0]).toMatchObject({ status: 'rejected' });
    const counted = results
      .filter((result) => result.status === 'fulfilled')
      .map((result) => (result as PromiseFulfilledResult<RateDecision>).value.remaining);
    // MySQL sends the first hit at once and the four that arrive meanwhile wait for it, then go in the next batch;
    // SQLite gathers all five hits of this event-loop turn into the one statement, which fails.
    expect(counted.sort()).toEqual(dialect === 'mysql' ? [6, 7, 8, 9] : []);
    // No failed hit was counted: the next one has the place after the hits that were.
    const next = await limiter.consume(4, WINDOW + 3_000);
    expect(next.remaining).toBe(9 - counted.length);
  });
});

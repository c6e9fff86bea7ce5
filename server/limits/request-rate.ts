import type { Pool } from 'mysql2';
import { RateLimiterMemory, RateLimiterMySQL, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

export interface RequestRateLimiter {
  consume(keyId: number): Promise<RateDecision>;
}

/**
 * Requests per minute per API key (CONTRACT §9) with rate-limiter-flexible. On MySQL the counters live in the
 * shared `rate_limits` table so every server process counts against one budget; SQLite runs as one process, so
 * its counters live in memory.
 */
export function createRequestRateLimiter(options: { perMinute: number; mysql?: { pool: Pool; database: string } }): RequestRateLimiter {
  const common = { points: options.perMinute, duration: 60, keyPrefix: 'key' };
  const limiter = options.mysql
    ? new RateLimiterMySQL({ ...common, storeClient: options.mysql.pool, storeType: 'pool', dbName: options.mysql.database, tableName: 'rate_limits', tableCreated: true })
    : new RateLimiterMemory(common);

  const decision = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
    allowed,
    limit: options.perMinute,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });

  return {
    async consume(keyId) {
      try {
        return decision(await limiter.consume(String(keyId)), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(rejection, false);
        throw rejection;
      }
    },
  };
}

import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../server/clock.js';
import { loadConfig } from '../../server/env.js';
import { type RunningServer, startServer } from '../../server/main.js';
import { ApiClient } from '../fixtures/api-client.js';
import { MANY_SIGN_INS } from './processes.js';
import { createTestDatabase, type TestDatabase, type TestDialect } from './databases.js';

/** Real time plus an offset the test can move forward (expiry without sleeping). */
export class TestClock implements Clock {
  private offsetMs = 0;
  now() {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number) {
    this.offsetMs += ms;
  }
  /** Moves forward to `at` (epoch ms); never back. */
  advanceTo(at: number) {
    this.offsetMs += Math.max(0, at - this.now());
  }
}

/** Just after the next minute starts: a test that counts per-minute windows then has a whole minute to itself. */
export function startOfNextMinute(clock: Clock): number {
  return Math.ceil(clock.now() / 60_000) * 60_000 + 100;
}

export interface TestServer extends RunningServer {
  api: ApiClient;
  clock: TestClock;
  databaseUrl: string;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Reuse another server's database (several processes on one database). */
  database?: TestDatabase;
  /** Sees every statement the server sends to its database. */
  onQuery?: (sql: string) => void;
}

/** A real server on a random port over a fresh database of the given dialect. */
export async function startTestServer(
  dialect: TestDialect,
  options: TestServerOptions = {},
): Promise<TestServer & { dropDatabase(): Promise<void> }> {
  const database = options.database ?? (await createTestDatabase(dialect, { migrated: true }));
  const clock = new TestClock();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-data-')),
    PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ALLOW_PRIVATE_NETWORK: 'true',
    WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms',
    // Retention passes run only when a test asks (services' retention.runOnce), never in the middle of another test.
    RETENTION_INTERVAL: '1000d',
    ...MANY_SIGN_INS,
    ...options.env,
  });
  const running = await startServer(config, { clock, onQuery: options.onQuery });
  return {
    ...running,
    api: new ApiClient(running.url),
    clock,
    databaseUrl: database.url,
    dropDatabase: () => (options.database ? Promise.resolve() : database.drop()),
  };
}

/**
 * Starts one server for the surrounding `describe` (fresh database, dropped afterwards). The returned object stands
 * for the server once it has started, so tests read `server.api.get(…)`. `options` may be a function, called when the
 * server starts, for settings known only then (a fake provider's URL started by an earlier `beforeAll`). The server
 * stops after the describe's other `afterAll` hooks (they run in reverse order), so those may still use it.
 */
export function useTestServer(
  dialect: TestDialect,
  options: TestServerOptions | (() => TestServerOptions | Promise<TestServerOptions>) = {},
): TestServer {
  let current: Awaited<ReturnType<typeof startTestServer>> | undefined;
  beforeAll(async () => {
    current = await startTestServer(dialect, typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => {
    await current?.close();
    await current?.dropDatabase();
  });
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!current) throw new Error('The test server is not started yet: use it inside a test or a hook.');
      return current[property as keyof TestServer];
    },
  });
}

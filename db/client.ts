import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  type LogEvent,
  MysqlAdapter,
  MysqlDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { createPool } from 'mysql2';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'mysql';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  close(): Promise<void>;
}

/** `sqlite:<file>` (or `sqlite::memory:`) selects embedded SQLite; `mysql://…` selects MySQL/MariaDB through a pool. */
/** `onQuery`: sees every statement sent (tests count a request's round trips with it). */
export function openDatabase(
  url: string,
  options: { poolSize?: number; onQuery?: (sql: string) => void } = {},
): DatabaseHandle {
  const { onQuery } = options;
  const log = onQuery ? (event: LogEvent) => onQuery(event.query.sql) : undefined;
  if (url.startsWith('mysql://')) {
    const pool = createPool({
      uri: url,
      connectionLimit: options.poolSize ?? 10,
      timezone: 'Z',
      charset: 'utf8mb4',
      // Same JS shapes as SQLite: BIGINT, COUNT and SUM come back as numbers.
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
    });
    const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }), log });
    return { db, dialect: 'mysql', close: () => db.destroy() };
  }
  if (url.startsWith('sqlite:')) {
    const database = withStatementCache(openSqliteFile(url.slice('sqlite:'.length)));
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }), log });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or mysql:// (got "${url}")`);
}

/**
 * A SQLite file (or `:memory:`) with Roomstage's settings: WAL so readers never wait for the writer, synchronous
 * NORMAL (durable at each checkpoint, safe against corruption), a busy timeout for the write lock that other
 * processes share, and foreign keys enforced. bench:auth's bare reference opens its file with the same settings.
 */
export function openSqliteFile(file: string): SqliteDatabase.Database {
  const inMemory = file === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new SqliteDatabase(inMemory ? ':memory:' : resolve(file));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** How many prepared statements a SQLite database keeps: the app's statements, with room for IN lists of many sizes. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement it runs, and SQLite compiles it again each time: in bench:auth
 * that compiling was a tenth of the server's CPU. The app sends the same few hundred statements over and over, so
 * they are kept, most recently used last, and the least recently used goes when there are too many. A kept
 * statement never runs twice at once: Kysely runs one query at a time on its one SQLite connection, and a stream
 * holds that connection until it is read to the end or left (which resets its statement). It stays valid across
 * schema changes: SQLite prepares it again when the schema moved.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const kept = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string) {
      const statement = kept.get(sql);
      if (statement) {
        kept.delete(sql);
        kept.set(sql, statement);
        return statement;
      }
      const prepared = sqlite.prepare(sql);
      kept.set(sql, prepared);
      if (kept.size > STATEMENT_CACHE_SIZE) {
        const [leastRecent] = kept.keys();
        if (leastRecent !== undefined) kept.delete(leastRecent);
      }
      return prepared;
    },
    close() {
      kept.clear();
      sqlite.close();
    },
  };
}

/**
 * SQLite transactions take the write lock when they begin. A deferred BEGIN that reads, then writes while another
 * process (the worker, a second server) has committed cannot be upgraded and fails at once with "database is locked",
 * without waiting out busy_timeout; BEGIN IMMEDIATE waits for the lock instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Works on a Kysely instance and on a transaction alike. */
export function isMysql(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

/**
 * Starts the first statement of a batch that gathers the work arriving while a statement is in flight (rate-limit
 * hits, key uses). On MySQL it goes now: the round trip is the time others gather in. A SQLite statement runs to
 * completion at once, so nothing would ever gather: it waits for the end of this event-loop turn instead, and the
 * requests read in that turn join it (each would otherwise take SQLite's one write lock, shared by every process).
 */
export function startGatheringBatch(db: Kysely<any>, start: () => void): void {
  if (isMysql(db)) start();
  else setImmediate(start);
}

/** True when the database answers a trivial query: what /api/health reports. Never throws. */
export async function databaseAnswers(db: Kysely<any>): Promise<boolean> {
  try {
    await db.executeQuery(CompiledQuery.raw('select 1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The bare reference for bench/auth.ts: plain node:http answering a small JSON after doing what the API key check
 * does — find the key by SHA-256 hash where not revoked, write last_used_at — on MySQL through a mysql2 pool, or
 * on SQLite through better-sqlite3, opened as Roomstage opens it (db/client.ts: openSqliteFile).
 * Env: PORT, DATABASE_URL (mysql://…/db or sqlite:<file>), BARE_PROCESSES (1: that many node:cluster processes
 * behind the port, as Roomstage runs with WEB_CONCURRENCY). Health: GET /health.
 */
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPool, type RowDataPacket } from 'mysql2/promise';
import { openSqliteFile } from '../db/client.js';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

interface KeyRow {
  id: number;
  account_id: string;
  mode: string;
}

/** The two statements of a key check, on one database. */
interface KeyStore {
  find(hash: string): Promise<KeyRow | undefined>;
  touch(id: number, now: number): Promise<void>;
  close(): Promise<void>;
}

const FIND_KEY = 'select id, account_id, mode from api_keys where key_hash = ? and revoked_at is null';
const TOUCH_KEY = 'update api_keys set last_used_at = ? where id = ?';

function mysqlStore(url: string): KeyStore {
  const pool = createPool({ uri: url, connectionLimit: 10, timezone: 'Z', charset: 'utf8mb4' });
  return {
    async find(hash) {
      const [rows] = await pool.query<(KeyRow & RowDataPacket)[]>(FIND_KEY, [hash]);
      return rows[0];
    },
    async touch(id, now) {
      await pool.query(TOUCH_KEY, [now, id]);
    },
    close: () => pool.end(),
  };
}

function sqliteStore(file: string): KeyStore {
  const sqlite = openSqliteFile(file);
  const find = sqlite.prepare<[string], KeyRow>(FIND_KEY);
  const touch = sqlite.prepare<[number, number]>(TOUCH_KEY);
  return {
    find: async (hash) => find.get(hash),
    async touch(id, now) {
      touch.run(now, id);
    },
    close: async () => void sqlite.close(),
  };
}

async function authenticate(store: KeyStore, header: string | undefined): Promise<KeyRow | undefined> {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const row = await store.find(createHash('sha256').update(match[1]!).digest('hex'));
  if (row) await store.touch(row.id, Date.now());
  return row;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(store: KeyStore, req: IncomingMessage, res: ServerResponse) {
  if (req.url === '/health') return send(res, 200, { status: 'ok' });
  const key = await authenticate(store, req.headers.authorization);
  if (!key) return send(res, 401, { error: 'authentication_required' });
  send(res, 200, { account_id: key.account_id, mode: key.mode });
}

const processes = Number(process.env.BARE_PROCESSES ?? 1);
if (processes > 1 && cluster.isPrimary) {
  for (let index = 0; index < processes; index += 1) cluster.fork();
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
  });
} else {
  serve();
}

function serve() {
  const url = requiredEnv('DATABASE_URL');
  const store = url.startsWith('sqlite:') ? sqliteStore(url.slice('sqlite:'.length)) : mysqlStore(url);
  const server = createServer((req, res) => {
    handle(store, req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) send(res, 500, { error: 'internal_error' });
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), () =>
    console.log(`bare reference listening on ${JSON.stringify(server.address())}`),
  );

  process.once('SIGTERM', () => {
    server.close(() => void store.close().then(() => process.exit(0)));
    server.closeIdleConnections();
  });
}

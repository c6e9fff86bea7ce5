/**
 * The bare reference for bench/auth.ts: plain node:http + a mysql2 pool doing what the API key check does —
 * find the key by SHA-256 hash where not revoked, write last_used_at — and answering a small JSON.
 * Env: PORT, DATABASE_URL (mysql://…/db), BARE_PROCESSES (1: that many node:cluster processes behind the port, as
 * Roomstage runs with WEB_CONCURRENCY). Health: GET /health.
 */
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

interface KeyRow extends RowDataPacket {
  id: number;
  account_id: string;
  mode: string;
}

async function authenticate(pool: Pool, header: string | undefined): Promise<KeyRow | null> {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const hash = createHash('sha256').update(match[1]!).digest('hex');
  const [rows] = await pool.query<KeyRow[]>(
    'select id, account_id, mode from api_keys where key_hash = ? and revoked_at is null',
    [hash],
  );
  const row = rows[0];
  if (!row) return null;
  await pool.query('update api_keys set last_used_at = ? where id = ?', [Date.now(), row.id]);
  return row;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(pool: Pool, req: IncomingMessage, res: ServerResponse) {
  if (req.url === '/health') return send(res, 200, { status: 'ok' });
  const key = await authenticate(pool, req.headers.authorization);
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
  const pool = createPool({ uri: requiredEnv('DATABASE_URL'), connectionLimit: 10, timezone: 'Z', charset: 'utf8mb4' });
  const server = createServer((req, res) => {
    handle(pool, req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) send(res, 500, { error: 'internal_error' });
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), () =>
    console.log(`bare reference listening on ${JSON.stringify(server.address())}`),
  );

  process.once('SIGTERM', () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeIdleConnections();
  });
}

/**
 * The bare reference for bench/webhooks.ts: the least a durable outbox deliverer can do on the same MySQL tables,
 * written straight on a mysql2 pool and undici. It claims due deliveries in one READ COMMITTED transaction (FOR UPDATE
 * SKIP LOCKED, then a lease), reads each payload and secret with the claim, POSTs with both signatures (signed by the
 * project's own functions, so the format has one definition) and a deadline, keeps 32 attempts in flight and marks
 * successes delivered in batches — what the real worker does, without its per-webhook fairness, retries, network
 * guard, metrics or shutdown handling. Whatever this process cannot beat on a machine, the real worker cannot either.
 * Env: DATABASE_URL (mysql://…/db). Prints "webhook worker running" when it polls; SIGTERM stops it.
 */
import { createPool, type RowDataPacket } from 'mysql2/promise';
import { Agent, request } from 'undici';
import { signPayload, standardSignature } from '../server/domain/webhooks/signing.js';

const IN_FLIGHT = 32;
const HELD = 8 * IN_FLIGHT;
const LEASE_MS = 30_000;
const TIMEOUT_MS = 10_000;
const FLUSH_SIZE = 200;

interface Due extends RowDataPacket {
  id: string;
  key_id: number;
  event_id: string;
}
interface EventRow extends RowDataPacket {
  id: string;
  event: string;
  payload: string;
}
interface WebhookRow extends RowDataPacket {
  key_id: number;
  url: string;
  secret: string;
}
interface Claimed {
  id: string;
  event_id: string;
  event: string;
  payload: string;
  url: string;
  secret: string;
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl?.startsWith('mysql://')) throw new Error('DATABASE_URL must be a mysql:// url');
const pool = createPool({ uri: databaseUrl, connectionLimit: 4 });
const agent = new Agent({ connections: 256, keepAliveTimeout: 500 });

const queue: Claimed[] = [];
let inFlight = 0;
let failures = 0;
let running = true;
let delivered: Array<{ id: string; at: number }> = [];

async function claim(limit: number): Promise<void> {
  const connection = await pool.getConnection();
  try {
    const now = Date.now();
    const leaseUntil = now + LEASE_MS;
    await connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await connection.beginTransaction();
    const [rows] = await connection.query<Due[]>(
      `select id, key_id, event_id from webhook_deliveries
       where status = 'pending' and next_attempt_at <= ? and (locked_until is null or locked_until <= ?)
       order by next_attempt_at limit ? for update skip locked`,
      [now, now, limit],
    );
    if (rows.length === 0) {
      await connection.commit();
      return;
    }
    // The events and the webhook by key, in the same transaction (each statement reads what has committed by then).
    const [events] = await connection.query<EventRow[]>(
      'select id, event, payload from webhook_events where id in (?)',
      [rows.map((row) => row.event_id)],
    );
    const [webhooks] = await connection.query<WebhookRow[]>(
      'select key_id, url, secret from webhooks where key_id in (?)',
      [[...new Set(rows.map((row) => row.key_id))]],
    );
    const eventsById = new Map(events.map((event) => [event.id, event]));
    const webhooksByKey = new Map(webhooks.map((webhook) => [webhook.key_id, webhook]));
    // A row whose event or webhook cannot be read stays due for the next claim, as in the real worker.
    const readable = rows.flatMap((row): Claimed[] => {
      const event = eventsById.get(row.event_id);
      const webhook = webhooksByKey.get(row.key_id);
      return event && webhook
        ? [{ ...row, event: event.event, payload: event.payload, url: webhook.url, secret: webhook.secret }]
        : [];
    });
    if (readable.length > 0)
      await connection.query('update webhook_deliveries set locked_until = ?, next_attempt_at = ? where id in (?)', [
        leaseUntil,
        leaseUntil,
        readable.map((row) => row.id),
      ]);
    await connection.commit();
    queue.push(...readable);
  } catch (error) {
    await connection.rollback().catch(() => {});
    throw error;
  } finally {
    connection.release();
  }
}

async function flush(): Promise<void> {
  const batch = delivered;
  delivered = [];
  if (batch.length === 0) return;
  const whens = batch.map(() => 'when ? then ?').join(' ');
  await pool.query(
    `update webhook_deliveries set status = 'delivered', attempts = attempts + 1, locked_until = null,
       next_attempt_at = null, last_status_code = 200, last_error = null, delivered_at = case id ${whens} end
     where id in (?)`,
    [...batch.flatMap((item) => [item.id, item.at]), batch.map((item) => item.id)],
  );
}

async function attempt(row: Claimed): Promise<void> {
  const timestamp = Math.floor(Date.now() / 1000);
  const deadline = AbortSignal.timeout(TIMEOUT_MS);
  const response = await request(row.url, {
    dispatcher: agent,
    method: 'POST',
    signal: deadline,
    body: row.payload,
    headers: {
      'content-type': 'application/json',
      'x-webhook-signature': signPayload(row.secret, row.payload),
      'x-webhook-id': row.event_id,
      'x-webhook-event': row.event,
      'x-webhook-timestamp': String(timestamp),
      'webhook-id': row.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardSignature(row.secret, row.event_id, timestamp, row.payload),
    },
  });
  await response.body.dump();
  if (response.statusCode >= 200 && response.statusCode < 300) {
    delivered.push({ id: row.id, at: Date.now() });
    if (delivered.length >= FLUSH_SIZE) await flush();
  }
}

function pump() {
  while (inFlight < IN_FLIGHT && queue.length > 0) {
    const row = queue.shift()!;
    inFlight += 1;
    attempt(row)
      // A failed POST (a reset keep-alive connection, say) goes back in line rather than waiting out its lease: on the
      // next turn of the event loop, so attempts that fail at once cannot keep the loop from claiming and flushing.
      .catch((error) => {
        failures += 1;
        if (failures === 1 || failures % 1000 === 0) console.error(`${failures} attempt(s) failed; the last:`, error);
        setImmediate(() => queue.push(row));
      })
      .finally(() => {
        inFlight -= 1;
        pump();
      });
  }
}

async function loop() {
  console.log('bare webhook worker running');
  while (running) {
    const free = HELD - queue.length - inFlight;
    if (free >= HELD / 2) await claim(Math.min(free, 256)).catch((error) => console.error('claim failed', error));
    pump();
    await new Promise((resolve) => setTimeout(resolve, queue.length === 0 ? 20 : 5));
  }
}

setInterval(() => void flush().catch((error) => console.error('flush failed', error)), 5).unref();
process.once('SIGTERM', () => {
  running = false;
  void flush().finally(() => pool.end().then(() => process.exit(0)));
});
void loop();

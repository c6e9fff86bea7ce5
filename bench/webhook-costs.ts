/**
 * `npm run bench:webhook-costs`: what one webhook delivery costs in its two parts that run per event, measured apart
 * from the rest of bench:webhooks (whose whole-pipeline CPU figures swing by a third between runs on a shared VM).
 *
 * 1. The HTTP attempt, in this process against a receiver in a child: `deliverOnce` as the worker calls it (both
 *    signatures, the deadline, the POST, the drain), beside the same POST through undici with an AbortSignal deadline
 *    (the shape the worker had before, and the bare deliverer's), and a bare unsigned POST with no deadline (the floor
 *    of this client). CPU µs per request in this process, 32 in flight.
 * 2. The claim, on MySQL: MariaDB's CPU per claimed row for the worker's own reads (`readClaimable`: the locking
 *    read, then its two reads by key), beside the single locking read with the event and webhook as scalar subqueries
 *    (the shape before), over 10,000 due deliveries, 200 rows a round, each round rolled back so every round reads
 *    the same rows.
 *
 * Rounds alternate between the variants, and each prints its minimum and median over the rounds: other work on the
 * machine only ever adds to a round, so the minimum is the steadiest figure.
 * Env: BENCH_ROUNDS (12), BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306).
 */
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { Agent, request } from 'undici';
import { type Db, openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { lockedForClaim } from '../db/leasing.js';
import { inTransaction } from '../db/transaction.js';
import { createAccount } from '../server/domain/accounts/accounts.js';
import { systemOrigin } from '../server/domain/audit/audit.js';
import { emitEvents } from '../server/domain/events/outbox.js';
import { createApiKey } from '../server/domain/keys/api-keys.js';
import { signPayload, standardSignature } from '../server/domain/webhooks/signing.js';
import { upsertWebhook } from '../server/domain/webhooks/webhooks.js';
import { deliverOnce } from '../server/domain/webhooks/delivery/deliver.js';
import { readClaimable } from '../server/domain/webhooks/delivery/worker.js';
import { benchStagingEvent, cpuSeconds, freshMysqlDatabase, intEnv, pidOf } from './lib.js';

const ROUNDS = intEnv('BENCH_ROUNDS', 12);
const MYSQL_BASE = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const REQUESTS_PER_ROUND = 10_000;
const IN_FLIGHT = 32;
const DELIVERIES = 10_000;
const CLAIM_BATCH = 200;
const CLAIM_ROUNDS = 100;
/** Read before pinning: availableParallelism() counts only the cores this process may run on. */
const CORES = availableParallelism();

const ROLLBACK = new Error('rolled back on purpose');

type Variant = { name: string; run(): Promise<void> };

function summary(name: string, values: number[], unit: string): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `${name.padEnd(58)} min ${sorted[0]!.toFixed(1).padStart(6)}  median ${median.toFixed(1).padStart(6)} ${unit}`;
}

/** Alternates the variants round by round (the first round of each is warm-up) and prints min and median. */
async function alternate(variants: Variant[], measure: (variant: Variant) => Promise<number>, unit: string) {
  const figures = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const variant of variants) {
      const value = await measure(variant);
      if (round > 0) figures.get(variant.name)!.push(value);
    }
  }
  for (const variant of variants) console.log(summary(variant.name, figures.get(variant.name)!, unit));
}

/** Puts a process on the given core(s) with taskset; false where that cannot be done. */
function pin(pid: number, cores: number | string): boolean {
  if (CORES < 2) return false;
  try {
    execFileSync('taskset', ['-p', '-c', String(cores), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The receiver: answers every POST with 200 once its body is read, in a child process of its own. */
function receiverChild() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
}

async function httpAttempts() {
  const child = fork(new URL(import.meta.url).pathname, ['--receiver'], { execArgv: ['--import', 'tsx'] });
  const [port] = (await once(child, 'message')) as [number];
  // One core each for the client and the receiver (where taskset and two cores exist): the scheduler moving them onto
  // one core between rounds is what makes unpinned figures swing.
  const pinned = pin(process.pid, 0) && pin(child.pid!, 1);
  const url = `http://127.0.0.1:${port}/hook`;
  const eventId = 'evt_2bX9cQe7LmN4pR8sT1vW3y';
  const payload = JSON.stringify({
    id: eventId,
    type: 'staging.complete',
    created_at: new Date().toISOString(),
    data: {
      image_url: 'https://images.example.test/1.jpg',
      claim_code: 'RS-BENCH234',
      style: 'modern',
      room_type: 'living_room',
      credits_used: 1,
      credits_remaining: 100,
      image_id: 'img_1',
    },
  });
  const secret = 'whsec_k3Jx9LmQ2pR7sT4vW8yZ1bC5dF6gH0nE';
  const agent = new Agent({ connections: 256, keepAliveTimeout: 500 });
  const signedHeaders = () => {
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      'content-type': 'application/json',
      'x-webhook-signature': signPayload(secret, payload),
      'x-webhook-id': eventId,
      'x-webhook-event': 'staging.complete',
      'x-webhook-timestamp': String(timestamp),
      'webhook-id': eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardSignature(secret, eventId, timestamp, payload),
    };
  };
  const variants: Variant[] = [
    {
      name: 'deliverOnce (the worker: EventEmitter deadline)',
      run: async () => {
        const result = await deliverOnce(
          {
            url,
            secrets: { secret, previous_secret: null, previous_secret_expires_at: null },
            eventId,
            event: 'staging.complete',
            payload,
          },
          { timeoutMs: 10_000, allowPrivateNetwork: true },
        );
        if (!result.delivered) throw new Error(`not delivered: ${result.error}`);
      },
    },
    {
      name: 'undici request, signed, AbortSignal deadline',
      run: async () => {
        const response = await request(url, {
          dispatcher: agent,
          method: 'POST',
          body: payload,
          headers: signedHeaders(),
          signal: AbortSignal.timeout(10_000),
        });
        await response.body.dump();
      },
    },
    {
      name: 'undici request, unsigned, no deadline (the floor)',
      run: async () => {
        const response = await request(url, {
          dispatcher: agent,
          method: 'POST',
          body: payload,
          headers: { 'content-type': 'application/json' },
        });
        await response.body.dump();
      },
    },
  ];
  console.log(
    `\nHTTP attempt: ${REQUESTS_PER_ROUND} POSTs a round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds each` +
      (pinned ? ' (client on core 0, receiver on core 1)' : ' (not pinned to cores)'),
  );
  try {
    await alternate(
      variants,
      async (variant) => {
        let left = REQUESTS_PER_ROUND;
        const before = process.cpuUsage();
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (left-- > 0) await variant.run();
          }),
        );
        const used = process.cpuUsage(before);
        return (used.user + used.system) / REQUESTS_PER_ROUND;
      },
      'µs CPU per request (this process)',
    );
  } finally {
    child.kill();
    await agent.close();
    // The claim half below runs on every core again.
    if (pinned) pin(process.pid, `0-${CORES - 1}`);
  }
}

async function claims() {
  const mysqlPid = pidOf('mariadbd') ?? pidOf('mysqld');
  if (mysqlPid === undefined) throw new Error('no local MariaDB or MySQL server process to measure');
  const handle = openDatabase(await freshMysqlDatabase(MYSQL_BASE, 'roomstage_bench_webhook_costs'));
  try {
    const db = handle.db;
    await migrateToLatest(db);
    const now = Date.now();
    const account = await createAccount(db, { email: `costs-${now}@example.com`, password: 'bench-password-123', now });
    const { key } = await createApiKey(db, {
      accountId: account.id,
      name: 'bench',
      mode: 'live',
      origin: systemOrigin(account),
      now,
    });
    await upsertWebhook(db, {
      accountId: account.id,
      keyId: key.id,
      url: 'http://127.0.0.1:9/hook',
      enabled: true,
      now,
      policy: { allowPrivateNetwork: true },
      origin: systemOrigin(account),
    });
    for (let emitted = 0; emitted < DELIVERIES; emitted += 100) {
      await inTransaction(db, (trx) =>
        emitEvents(
          trx,
          Array.from({ length: 100 }, (_, i) =>
            benchStagingEvent({ accountId: account.id, keyId: key.id }, emitted + i, now),
          ),
        ),
      );
    }
    // Every round reads the same due rows: its transaction is rolled back, as a claim that leased nothing.
    const rolledBack = (work: (trx: Db) => Promise<unknown>) =>
      db
        .transaction()
        .setIsolationLevel('read committed')
        .execute(async (trx) => {
          await work(trx);
          throw ROLLBACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLBACK) throw error;
        });
    const due = Date.now();
    // The former claim's locking read, as it stood before readClaimable: the reference row.
    const dueDeliveries = (trx: typeof db) =>
      trx
        .selectFrom('webhook_deliveries as d')
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', due)
        .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', due)]))
        .orderBy('d.next_attempt_at')
        .limit(CLAIM_BATCH);
    const variants: Variant[] = [
      {
        name: 'locking read, then events by id and webhooks by key (now)',
        run: async () => {
          await rolledBack((trx) => readClaimable(trx, { now: due, limit: CLAIM_BATCH, saturatedKeys: [] }));
        },
      },
      {
        name: 'locking read with the event and webhook as subqueries (before)',
        run: async () => {
          await rolledBack(async (trx) => {
            await lockedForClaim(
              trx,
              dueDeliveries(trx).select((eb) => {
                const event = (column: 'event' | 'payload') =>
                  eb.selectFrom('webhook_events as e').select(`e.${column}`).whereRef('e.id', '=', 'd.event_id');
                const webhook = (
                  column: 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'enabled',
                ) => eb.selectFrom('webhooks as w').select(`w.${column}`).whereRef('w.key_id', '=', 'd.key_id');
                return [
                  'd.id',
                  'd.key_id',
                  'd.attempts',
                  'd.event_id',
                  event('event').as('event'),
                  event('payload').as('payload'),
                  webhook('url').as('url'),
                  webhook('secret').as('secret'),
                  webhook('previous_secret').as('previous_secret'),
                  webhook('previous_secret_expires_at').as('previous_secret_expires_at'),
                  webhook('enabled').as('enabled'),
                ];
              }),
            ).execute();
          });
        },
      },
    ];
    console.log(
      `\nClaim on MySQL: ${DELIVERIES} due deliveries, ${CLAIM_BATCH} rows a round (rolled back), ` +
        `${CLAIM_ROUNDS} rounds a measurement, ${ROUNDS} measurements each`,
    );
    await alternate(
      variants,
      async (variant) => {
        const before = cpuSeconds(mysqlPid)!;
        for (let i = 0; i < CLAIM_ROUNDS; i++) await variant.run();
        return ((cpuSeconds(mysqlPid)! - before) * 1e6) / (CLAIM_ROUNDS * CLAIM_BATCH);
      },
      'µs MariaDB CPU per claimed row',
    );
  } finally {
    await handle.close();
  }
}

if (process.argv.includes('--receiver')) receiverChild();
else {
  await httpAttempts();
  await claims();
}

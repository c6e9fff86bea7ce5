import type { Db } from '../../../../db/client.js';
import { createLeaseLoop, inClaimTransaction, lockedForClaim } from '../../../../db/leasing.js';
import { type Clock, systemClock } from '../../../clock.js';
import { OUTBOX_WAKE, outboxSignal } from '../../events/outbox.js';
import { type AttemptResult, DEFAULT_DELIVERY_TIMEOUT_MS, deliverOnce } from './deliver.js';
import { retryingDeadlocks } from '../../../../db/transaction.js';
import type { WebhookSecrets } from '../signing.js';
import { type DeliveredItem, type LeasedDelivery, recordAttempt, recordDeliveredBatch } from './record.js';
import { log as logger } from '../../../observability/logger.js';
import type { Metrics } from '../../../observability/metrics.js';

export interface WorkerOptions {
  db: Db;
  retryDelaysMs: readonly number[];
  allowPrivateNetwork: boolean;
  clock?: Clock;
  /** Per attempt: 10 s. Tests shorten it. */
  timeoutMs?: number;
  /** Fallback when no in-process wake-up arrives (another process emitted, a retry fell due elsewhere). */
  pollIntervalMs?: number;
  /** How long a claimed delivery stays ours; past it, a crashed attempt is due again. Default 2 × timeout + 10 s. */
  leaseMs?: number;
  /** Attempts in flight in this worker, all targets together. */
  concurrency?: number;
  /** Attempts in flight to one webhook, so one slow receiver cannot take every slot. Three times as many may wait locally. */
  perTargetConcurrency?: number;
  /** Rows claimed per locking transaction. */
  batchSize?: number;
  random?: () => number;
  log?: (message: string, error?: unknown) => void;
  /** Counts attempt outcomes (delivered, retry, failed) for /metrics. */
  metrics?: Pick<Metrics, 'webhookAttempts'>;
}

export interface WebhookWorker {
  start(): void;
  /** Stops claiming, waits for attempts in flight and their results to be written. */
  stop(): Promise<void>;
  /** Claim now rather than at the next poll. */
  wake(): void;
}

interface ClaimedDelivery extends LeasedDelivery {
  eventId: string;
  event: string;
  payload: string;
  url: string | null;
  secrets: WebhookSecrets | null;
  enabled: boolean;
}

const DELIVERED_FLUSH_SIZE = 200;
const DELIVERED_FLUSH_DELAY_MS = 5;
const CLAIM_COALESCE_MS = 5;

/**
 * The reads of one claiming round, in the claim's transaction: the due deliveries (locked, skipping rows another worker
 * is claiming), then their events by id and their webhooks by key with plain reads that lock nothing, so claims never
 * wait on (or hold up) the events table or a webhook being saved. Reading those as seven scalar subqueries of the
 * locking read cost MariaDB about 1.5 times the CPU per row (bench:webhook-costs, which runs this function). Under READ
 * COMMITTED each statement reads what has committed by then, so a delivery's event (committed with it) is there to read.
 */
export async function readClaimable(trx: Db, due: { now: number; limit: number; saturatedKeys: readonly number[] }) {
  let query = trx
    .selectFrom('webhook_deliveries as d')
    .select(['d.id', 'd.key_id', 'd.attempts', 'd.event_id'])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', due.now)
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', due.now)]))
    .orderBy('d.next_attempt_at')
    .limit(due.limit);
  if (due.saturatedKeys.length > 0) query = query.where('d.key_id', 'not in', [...due.saturatedKeys]);
  const candidates = await lockedForClaim(trx, query).execute();
  if (candidates.length === 0) return { candidates, events: [], webhooks: [] };
  const events = await trx
    .selectFrom('webhook_events')
    .select(['id', 'event', 'payload'])
    .where(
      'id',
      'in',
      candidates.map((row) => row.event_id),
    )
    .execute();
  const webhooks = await trx
    .selectFrom('webhooks')
    .select(['key_id', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at', 'enabled'])
    .where('key_id', 'in', [...new Set(candidates.map((row) => row.key_id))])
    .execute();
  return { candidates, events, webhooks };
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const db = options.db;
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  // Cheap (one indexed range read) and it bounds the delay for events emitted by other processes.
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  // Claimed rows normally wait milliseconds in the local queue; one that could no longer finish within its lease is
  // not sent (see attempt) and falls due again when the lease ends.
  const leaseMs = options.leaseMs ?? 2 * timeoutMs + 10_000;
  const concurrency = options.concurrency ?? 256;
  const perTarget = options.perTargetConcurrency ?? 32;
  const batchSize = options.batchSize ?? 200;
  const log = options.log ?? ((message, error) => logger.error({ err: error, component: 'webhooks' }, message));

  let limitedByCapacity = false;
  // Claimed rows are "held" from their claim until their attempt ends, so the next attempts are already at hand when
  // one finishes and no webhook waits on a claiming round trip. Per webhook the stock is eight times its in-flight
  // limit: a round takes 20-40 ms on a busy MySQL while 32 attempts turn over every 8 ms or so, and with four times
  // (bench:webhooks) the stock ran dry between rounds, leaving 21 of the 32 slots busy on average instead of 29.
  let inFlight = 0;
  let held = 0;
  const inFlightByKey = new Map<number, number>();
  const heldByKey = new Map<number, number>();
  const queues = new Map<number, ClaimedDelivery[]>();
  const maxHeld = 4 * concurrency;
  const maxHeldPerKey = 8 * perTarget;
  const retryTimers = new Set<NodeJS.Timeout>();

  // Successful results are written in batches; failures (rare, each with its own next time) one by one.
  let delivered: Array<DeliveredItem & { done: () => void; fail: (error: unknown) => void }> = [];
  let flushTimer: NodeJS.Timeout | null = null;

  const loop = createLeaseLoop({
    round,
    pollIntervalMs,
    wakeOn: { emitter: outboxSignal, event: OUTBOX_WAKE },
    onRoundError: (error) => log('claiming due deliveries failed; trying again shortly', error),
    // Freed slots are claimed together: a claiming transaction per finished attempt would cost more than the attempt.
    pauseAfterRound: () => (limitedByCapacity ? CLAIM_COALESCE_MS : 0),
    onStop: async () => {
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      await releaseQueued();
    },
    // Attempts in flight finish (each bounded by the timeout) and every result is written before stop returns.
    flush: flushDelivered,
  });
  const { wake, track } = loop;

  function adjust(map: Map<number, number>, key: number, delta: number) {
    const value = (map.get(key) ?? 0) + delta;
    if (value <= 0) map.delete(key);
    else map.set(key, value);
  }

  /** Starts queued attempts while the worker and each webhook have free slots. */
  function pump() {
    if (!loop.running) return;
    for (const [keyId, queue] of queues) {
      while (inFlight < concurrency && (inFlightByKey.get(keyId) ?? 0) < perTarget) {
        const delivery = queue.shift();
        if (!delivery) break;
        inFlight += 1;
        adjust(inFlightByKey, keyId, 1);
        track(attempt(delivery)).catch((error) =>
          log(`recording delivery ${delivery.id} failed; it is retried when its lease ends`, error),
        );
      }
      if (queue.length === 0) queues.delete(keyId);
    }
  }

  /** On a clean stop, rows claimed but not started are handed back at once instead of waiting out their lease. */
  async function releaseQueued() {
    const waiting = [...queues.values()].flat();
    queues.clear();
    for (const delivery of waiting) {
      held -= 1;
      adjust(heldByKey, delivery.keyId, -1);
    }
    const now = clock.now();
    for (const delivery of waiting) {
      await retryingDeadlocks(() =>
        db
          .updateTable('webhook_deliveries')
          .set({ locked_until: null, next_attempt_at: now })
          .where('id', '=', delivery.id)
          .where('locked_until', '=', delivery.leaseUntil)
          .execute(),
      ).catch((error) => log(`releasing delivery ${delivery.id} failed; it is retried when its lease ends`, error));
    }
  }

  function flushDelivered(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const batch = delivered;
    delivered = [];
    if (batch.length === 0) return Promise.resolve();
    return track(
      recordDeliveredBatch(db, batch).then(
        () => {
          for (const item of batch) item.done();
        },
        (error) => {
          for (const item of batch) item.fail(error);
        },
      ),
    );
  }

  function recordDelivered(delivery: LeasedDelivery, statusCode: number, at: number): Promise<void> {
    return new Promise((done, fail) => {
      delivered.push({ delivery, statusCode, deliveredAt: at, done, fail });
      if (delivered.length >= DELIVERED_FLUSH_SIZE) void flushDelivered();
      else flushTimer ??= setTimeout(() => void flushDelivered(), DELIVERED_FLUSH_DELAY_MS);
    });
  }

  async function claim(limit: number, saturatedKeys: number[]): Promise<{ rows: ClaimedDelivery[]; more: boolean }> {
    const now = clock.now();
    const leaseUntil = now + leaseMs;
    const lockAndLease = async (trx: Db) => {
      const { candidates, events, webhooks } = await readClaimable(trx, { now, limit, saturatedKeys });
      const eventsById = new Map(events.map((event) => [event.id, event]));
      // The foreign key guarantees the event; should it still be missing, the row stays due rather than being sent
      // with an empty body.
      const readable = candidates.flatMap((row) => {
        const event = eventsById.get(row.event_id);
        return event ? [{ ...row, event: event.event, payload: event.payload }] : [];
      });
      // Take no more per webhook than it has free slots; the rest stay due for the next round or another worker.
      const taken = new Map<number, number>();
      const chosen = readable.filter((row) => {
        const used = (heldByKey.get(row.key_id) ?? 0) + (taken.get(row.key_id) ?? 0);
        if (used >= maxHeldPerKey) return false;
        taken.set(row.key_id, (taken.get(row.key_id) ?? 0) + 1);
        return true;
      });
      if (chosen.length > 0) {
        await trx
          .updateTable('webhook_deliveries')
          // next_attempt_at moves to the lease end too: leased rows leave the due range that claims scan, and a
          // crashed attempt falls due again exactly when its lease ends.
          .set({ locked_until: leaseUntil, next_attempt_at: leaseUntil })
          .where(
            'id',
            'in',
            chosen.map((row) => row.id),
          )
          .execute();
      }
      return { chosen, webhooks, more: candidates.length === limit };
    };
    const { chosen, webhooks, more } = await inClaimTransaction(db, lockAndLease);
    const webhooksByKey = new Map(webhooks.map((webhook) => [webhook.key_id, webhook]));
    const rows = chosen.map((row): ClaimedDelivery => {
      const webhook = webhooksByKey.get(row.key_id);
      return {
        id: row.id,
        keyId: row.key_id,
        attempts: row.attempts,
        leaseUntil,
        eventId: row.event_id,
        event: row.event,
        payload: row.payload,
        url: webhook?.url ?? null,
        secrets: webhook?.secret
          ? {
              secret: webhook.secret,
              previous_secret: webhook.previous_secret,
              previous_secret_expires_at: webhook.previous_secret_expires_at,
            }
          : null,
        enabled: webhook?.enabled === 1,
      };
    });
    return { rows, more };
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    // A webhook switched off (or emptied) after the event was written receives nothing; a test ping still goes.
    const { url, secrets } = delivery;
    const disabled = !url || !secrets || (!delivery.enabled && delivery.event !== 'test.ping');
    let result: AttemptResult;
    try {
      // Never send past our lease: by then another worker may own the row. It falls due again when the lease ends.
      if (clock.now() + timeoutMs >= delivery.leaseUntil) return;
      result = disabled
        ? {
            delivered: false,
            statusCode: null,
            error: 'The webhook is disabled or has no url; not sent.',
            durationMs: 0,
          }
        : await deliverOnce(
            { url, secrets, eventId: delivery.eventId, event: delivery.event, payload: delivery.payload },
            { timeoutMs, allowPrivateNetwork: options.allowPrivateNetwork, now: () => clock.now() },
          );
    } finally {
      inFlight -= 1;
      held -= 1;
      adjust(inFlightByKey, delivery.keyId, -1);
      adjust(heldByKey, delivery.keyId, -1);
      pump();
      if (limitedByCapacity) wake();
    }
    const now = clock.now();
    if (result.delivered && result.statusCode !== null) {
      await recordDelivered(delivery, result.statusCode, now);
      options.metrics?.webhookAttempts.inc({ outcome: 'delivered' });
      return;
    }
    const outcome = await recordAttempt(db, delivery, result, now, {
      retryDelaysMs: options.retryDelaysMs,
      random: options.random,
      final: disabled,
    });
    options.metrics?.webhookAttempts.inc({ outcome: outcome.status === 'pending' ? 'retry' : 'failed' });
    if (outcome.status === 'pending' && loop.running) {
      const timer = setTimeout(
        () => {
          retryTimers.delete(timer);
          wake();
        },
        Math.max(0, outcome.nextAttemptAt - clock.now()),
      );
      timer.unref();
      retryTimers.add(timer);
    }
  }

  /** One claiming round; true when more due rows may be waiting right now. */
  async function round(): Promise<boolean> {
    const free = maxHeld - held;
    const saturatedKeys = [...heldByKey].filter(([, n]) => n >= maxHeldPerKey).map(([key]) => key);
    if (free <= 0) {
      limitedByCapacity = true;
      return false;
    }
    const { rows, more } = await claim(Math.min(batchSize, free), saturatedKeys);
    for (const delivery of rows) {
      held += 1;
      adjust(heldByKey, delivery.keyId, 1);
      const queue = queues.get(delivery.keyId) ?? [];
      queue.push(delivery);
      queues.set(delivery.keyId, queue);
    }
    pump();
    // Rows were left because a webhook or the worker is full: a freed slot should trigger the next round.
    limitedByCapacity = more || held >= maxHeld || [...heldByKey.values()].some((n) => n >= maxHeldPerKey);
    return more && rows.length > 0;
  }

  return { start: loop.start, stop: loop.stop, wake };
}

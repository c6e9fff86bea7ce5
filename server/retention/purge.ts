import { sql } from 'kysely';
import { DAY_MS } from '../clock.js';
import type { Db } from '../../db/client.js';
import { IMPRESSION_WINDOW_MS } from '../domain/ads/revenue.js';
import { IDEMPOTENCY_TTL_MS } from '../domain/idempotency/requests.js';
import type { ImageStorage } from '../storage/storage.js';

export interface RetentionPolicy {
  /** Delivered webhook events (and their deliveries) older than this go (WEBHOOK_EVENT_RETENTION, 30 days). */
  webhookEventsMs: number;
  /** Finished asynchronous jobs (succeeded or failed) older than this go (JOB_RETENTION, 30 days). */
  jobsMs: number;
  /** Stored files with no image row are removed once older than this (ORPHAN_FILE_GRACE): rows commit after files. */
  orphanFileGraceMs: number;
  /** Audit log entries older than this go (AUDIT_RETENTION, 365 days); so do used or expired e-mailed links. */
  auditMs: number;
}

export interface PurgeReport {
  idempotencyKeys: number;
  sessions: number;
  webhookEvents: number;
  webhookDeliveries: number;
  impressionViews: number;
  rateLimitWindows: number;
  orphanFiles: number;
  jobs: number;
  auditEntries: number;
  userTokens: number;
}

/** Rows per statement: short statements keep row locks brief for the requests running beside the purge. */
const BATCH = 500;
/** Request-rate windows are a minute long; an hour-old one is certainly finished. */
const RATE_WINDOW_KEEP_MS = 3_600_000;

type AgedTable =
  | 'idempotency_keys'
  | 'sessions'
  | 'impression_views'
  | 'rate_limit_windows'
  | 'audit_log'
  | 'user_tokens';

/**
 * Deletes rows whose `column` is at most `cutoff`, a batch at a time: each statement deletes up to the BATCH-th
 * oldest time, so it works alike on SQLite (no DELETE … LIMIT) and MySQL. Safe to run in many processes at once.
 */
async function deleteOlder(db: Db, table: AgedTable, column: string, cutoff: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const edge = await sql<{
      edge_at: number;
    }>`SELECT ${sql.ref(column)} AS edge_at FROM ${sql.table(table)} WHERE ${sql.ref(column)} <= ${cutoff} ORDER BY ${sql.ref(column)} LIMIT 1 OFFSET ${BATCH - 1}`.execute(
      db,
    );
    const upTo = edge.rows[0] ? Math.min(Number(edge.rows[0].edge_at), cutoff) : cutoff;
    const result = await sql`DELETE FROM ${sql.table(table)} WHERE ${sql.ref(column)} <= ${upTo}`.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (!edge.rows[0] || count === 0) return deleted;
  }
}

/** Finished jobs older than the cutoff, a batch at a time (their input rows go with them: ON DELETE CASCADE). */
async function purgeFinishedJobs(db: Db, cutoff: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await db
      .selectFrom('jobs')
      .select('id')
      .where('finished_at', '<=', cutoff)
      .orderBy('finished_at')
      .limit(BATCH)
      .execute();
    if (batch.length === 0) return deleted;
    const ids = batch.map((row) => row.id);
    await db.deleteFrom('job_inputs').where('job_id', 'in', ids).execute();
    const result = await db
      .deleteFrom('jobs')
      .where('id', 'in', ids)
      .where('finished_at', '<=', cutoff)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
    if (batch.length < BATCH) return deleted;
  }
}

/** Old events whose every delivery is delivered (or that had none to make), with those deliveries. */
async function purgeWebhookEvents(db: Db, cutoff: number): Promise<{ events: number; deliveries: number }> {
  let events = 0;
  let deliveries = 0;
  for (;;) {
    const batch = await db
      .selectFrom('webhook_events as e')
      .select('e.id')
      .where('e.created_at', '<=', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'e.id')
              .where('d.status', '!=', 'delivered'),
          ),
        ),
      )
      .orderBy('e.created_at')
      .limit(BATCH)
      .execute();
    if (batch.length === 0) return { events, deliveries };
    const ids = batch.map((row) => row.id);
    await db.transaction().execute(async (trx) => {
      // A delivery added since the select (a redelivery) keeps its event: only delivered rows and then events with
      // nothing left go.
      const d = await trx
        .deleteFrom('webhook_deliveries')
        .where('event_id', 'in', ids)
        .where('status', '=', 'delivered')
        .executeTakeFirst();
      const e = await trx
        .deleteFrom('webhook_events')
        .where('id', 'in', ids)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'webhook_events.id'),
            ),
          ),
        )
        .executeTakeFirst();
      deliveries += Number(d.numDeletedRows);
      events += Number(e.numDeletedRows);
    });
    if (batch.length < BATCH) return { events, deliveries };
  }
}

/**
 * Files whose image row never committed (the request died between storing and recording), once older than the
 * grace period: rows are written right after their files, so a younger file may still be about to get its row.
 */
async function purgeOrphanFiles(db: Db, storage: ImageStorage, cutoff: number): Promise<number> {
  let removed = 0;
  let candidates: string[] = [];
  const sweep = async () => {
    if (candidates.length === 0) return;
    const names = candidates;
    candidates = [];
    // A file is known when a row names it as an output, as the original kept to re-render from, as a job's input, or
    // as an advertiser's product picture.
    const [outputs, originals, jobInputs, productImages] = await Promise.all([
      db.selectFrom('images').select('storage_name as name').where('storage_name', 'in', names).execute(),
      db
        .selectFrom('images')
        .select('original_storage_name as name')
        .where('original_storage_name', 'in', names)
        .execute(),
      db.selectFrom('job_inputs').select('storage_name as name').where('storage_name', 'in', names).execute(),
      db.selectFrom('products').select('image_storage_name as name').where('image_storage_name', 'in', names).execute(),
    ]);
    const known = new Set([...outputs, ...originals, ...jobInputs, ...productImages].map((row) => row.name));
    for (const name of names.filter((n) => !known.has(n))) {
      await storage.delete(name);
      removed += 1;
    }
  };
  for await (const entry of storage.list()) {
    if (entry.modifiedAt > cutoff) continue;
    candidates.push(entry.name);
    if (candidates.length >= BATCH) await sweep();
  }
  await sweep();
  return removed;
}

/**
 * One retention pass over everything that only grows (docs/operators/running.md, "retention pass"). `now` is the service clock for
 * rows; file ages are wall-clock times, so files are judged against `filesNow` (the real time).
 */
export async function purgeExpired(
  db: Db,
  storage: ImageStorage,
  policy: RetentionPolicy,
  now: number,
  filesNow = Date.now(),
): Promise<PurgeReport> {
  const idempotencyKeys = await deleteOlder(db, 'idempotency_keys', 'created_at', now - IDEMPOTENCY_TTL_MS);
  const sessions = await deleteOlder(db, 'sessions', 'expires_at', now);
  const impressionViews = await deleteOlder(db, 'impression_views', 'counted_at', now - IMPRESSION_WINDOW_MS);
  const rateLimitWindows = await deleteOlder(db, 'rate_limit_windows', 'window_start', now - RATE_WINDOW_KEEP_MS);
  const webhooks = await purgeWebhookEvents(db, now - policy.webhookEventsMs);
  const jobs = await purgeFinishedJobs(db, now - policy.jobsMs);
  const orphanFiles = await purgeOrphanFiles(db, storage, filesNow - policy.orphanFileGraceMs);
  const auditEntries = await deleteOlder(db, 'audit_log', 'created_at', now - policy.auditMs);
  // Single-use links are worthless once expired; a day's grace keeps a just-expired one answering "expired".
  const userTokens = await deleteOlder(db, 'user_tokens', 'expires_at', now - DAY_MS);
  return {
    auditEntries,
    userTokens,
    jobs,
    idempotencyKeys,
    sessions,
    webhookEvents: webhooks.events,
    webhookDeliveries: webhooks.deliveries,
    impressionViews,
    rateLimitWindows,
    orphanFiles,
  };
}

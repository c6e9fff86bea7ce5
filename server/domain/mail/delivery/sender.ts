import type { Db } from '../../../../db/client.js';
import { createLeaseLoop, inClaimTransaction, lockedForClaim } from '../../../../db/leasing.js';
import { retryingDeadlocks } from '../../../../db/transaction.js';
import type { Clock } from '../../../clock.js';
import { MAIL_WAKE, mailSignal } from '../outbox.js';
import { log } from '../../../observability/logger.js';
import type { MailTransport } from './transport.js';

/** Waits after the 1st, 2nd, … failed try; after the last one the message is marked failed (and kept). */
export const MAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 24 * 3_600_000];

export interface MailSenderOptions {
  db: Db;
  clock: Clock;
  transport: MailTransport;
  retryDelaysMs?: readonly number[];
  pollIntervalMs?: number;
  /** A claimed message whose sender died falls due again after this. */
  leaseMs?: number;
  batchSize?: number;
}

export interface MailSender {
  start(): void;
  stop(): Promise<void>;
  wake(): void;
}

/**
 * Sends the outbox: each round leases due messages (any process may run a sender; a lease that runs out means the
 * sender died, and the message is due again), sends them, and records the result or the next try with backoff.
 */
export function createMailSender(options: MailSenderOptions): MailSender {
  const { db, clock, transport } = options;
  const delays = options.retryDelaysMs ?? MAIL_RETRY_DELAYS_MS;
  const leaseMs = options.leaseMs ?? 120_000;
  const batchSize = options.batchSize ?? 20;

  async function claim() {
    const now = clock.now();
    const leaseUntil = now + leaseMs;
    return inClaimTransaction(db, async (trx) => {
      const due = await lockedForClaim(
        trx,
        trx
          .selectFrom('mail_outbox')
          .selectAll()
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .limit(batchSize),
      ).execute();
      if (due.length > 0)
        await trx
          .updateTable('mail_outbox')
          // Leased rows leave the due range until the lease ends, when a crashed send is due again.
          .set({ locked_until: leaseUntil, next_attempt_at: leaseUntil })
          .where(
            'id',
            'in',
            due.map((row) => row.id),
          )
          .execute();
      return { rows: due.map((row) => ({ ...row, locked_until: leaseUntil })), more: due.length === batchSize };
    });
  }

  async function sendOne(row: Awaited<ReturnType<typeof claim>>['rows'][number]) {
    const mine = (query: ReturnType<typeof db.updateTable<'mail_outbox'>>) =>
      query.where('id', '=', row.id).where('locked_until', '=', row.locked_until);
    try {
      await transport.send({
        id: row.id,
        to: row.to_address,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        link: row.link,
        createdAt: row.created_at,
      });
      await retryingDeadlocks(() =>
        mine(db.updateTable('mail_outbox'))
          .set({ status: 'sent', sent_at: clock.now(), attempts: row.attempts + 1, locked_until: null })
          .execute(),
      );
    } catch (error) {
      const attempts = row.attempts + 1;
      const delay = delays[attempts - 1];
      const reason = error instanceof Error ? error.message : String(error);
      log.warn({ component: 'mail', mailId: row.id, attempts, err: error }, 'sending an e-mail failed');
      await retryingDeadlocks(() =>
        mine(db.updateTable('mail_outbox'))
          .set({
            status: delay === undefined ? 'failed' : 'pending',
            attempts,
            next_attempt_at: delay === undefined ? null : clock.now() + delay,
            locked_until: null,
            last_error: reason.slice(0, 1000),
          })
          .execute(),
      );
    }
  }

  const loop = createLeaseLoop({
    async round() {
      const { rows, more } = await claim();
      await loop.track(Promise.all(rows.map((row) => sendOne(row))));
      return more;
    },
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    wakeOn: { emitter: mailSignal, event: MAIL_WAKE },
    onRoundError: (error) => log.error({ err: error, component: 'mail' }, 'claiming e-mails failed; retrying shortly'),
  });
  return {
    start: loop.start,
    stop: async () => {
      await loop.stop();
      transport.close();
    },
    wake: loop.wake,
  };
}

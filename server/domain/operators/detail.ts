import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { millicentsToCents } from '../ads/money.js';
import { listPayouts } from '../ads/earnings.js';
import { accountSummary } from './search.js';

type Executor = Kysely<Database>;

const RECENT = 20;

/** What an operator looks at before acting: balance, the member, keys, recent jobs and failures, webhooks, ad money. */
export async function accountDetail(db: Executor, accountId: string) {
  const account = await db
    .selectFrom('accounts')
    .leftJoin('user_security', 'user_security.user_id', 'accounts.id')
    .select([
      'accounts.id',
      'accounts.email',
      'accounts.credits',
      'accounts.suspended_at',
      'accounts.created_at',
      'accounts.ad_funds_millicents',
      'user_security.email_verified_at',
    ])
    .where('accounts.id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new AppError('not_found', `No account ${accountId}.`);
  const [keys, jobs, failures, deliveries, payouts] = await Promise.all([
    db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').execute(),
    db
      .selectFrom('jobs')
      .select(['id', 'operation', 'status', 'error', 'created_at', 'finished_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(RECENT)
      .execute(),
    db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhooks', 'webhooks.key_id', 'webhook_deliveries.key_id')
      .select([
        'webhook_deliveries.key_id',
        sql<number>`sum(case when webhook_deliveries.status = 'failed' then 1 else 0 end)`.as('failed'),
        sql<number>`count(*)`.as('total'),
      ])
      .where('webhooks.account_id', '=', accountId)
      .groupBy('webhook_deliveries.key_id')
      .execute(),
    listPayouts(db, accountId),
  ]);
  const earnedCents = millicentsToCents(
    Number(
      (
        await db
          .selectFrom('earnings_daily')
          .select(sql<number>`coalesce(sum(earned_millicents), 0)`.as('earned'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).earned,
    ),
  );
  const sumPayouts = (status: string) =>
    payouts.filter((payout) => payout.status === status).reduce((sum, payout) => sum + payout.amount_cents, 0);
  return {
    ...accountSummary(account),
    members: [
      {
        user_id: account.id,
        email: account.email,
        role: 'owner' as const,
        email_verified: account.email_verified_at !== null,
      },
    ],
    keys: keys.map((key) => ({
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      mode: key.mode,
      created_at: iso(key.created_at),
      last_used_at: iso(key.last_used_at),
      revoked_at: iso(key.revoked_at),
    })),
    recent_jobs: jobs.map((job) => ({
      id: job.id,
      operation: job.operation,
      status: job.status,
      error_code: job.error ? String((JSON.parse(job.error) as { code?: unknown }).code ?? '') : null,
      created_at: iso(job.created_at),
      finished_at: iso(job.finished_at),
    })),
    failed_jobs: Number(failures.n),
    webhooks: deliveries.map((row) => ({
      key_id: row.key_id,
      deliveries: Number(row.total),
      failure_rate: Number(row.total) === 0 ? 0 : Number(row.failed) / Number(row.total),
    })),
    ad_funds_cents: millicentsToCents(Number(account.ad_funds_millicents)),
    earnings: {
      available_cents: earnedCents - sumPayouts('requested') - sumPayouts('paid'),
      requested_cents: sumPayouts('requested'),
      paid_cents: sumPayouts('paid'),
    },
  };
}

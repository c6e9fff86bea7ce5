import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { listAudit } from '../audit/audit.js';
import { listCampaigns } from '../ads/campaigns.js';
import { adFundsEntryView, listAdFunds } from '../ads/funds.js';
import { millicentsToCents } from '../ads/money.js';
import { earningsBalances } from '../payouts/balances.js';
import { listPayouts } from '../payouts/request.js';
import { ledgerEntryView } from '../credits/ledger.js';
import { accountSummary } from './search.js';

type Executor = Kysely<Database>;

const RECENT = 20;

/**
 * What an operator looks at before acting: balance and ledger (its purchases, to refund), members, keys, recent jobs
 * and failures, webhooks, ad funds, campaigns and products, earnings and payouts, and the account's audit log.
 */
export async function accountDetail(db: Executor, accountId: string, now: number, options: { earningsHoldMs: number }) {
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
  const [
    keys,
    jobs,
    failures,
    deliveries,
    payouts,
    members,
    ledger,
    purchases,
    refunded,
    adFunds,
    campaigns,
    products,
    audit,
  ] = await Promise.all([
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
    db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .leftJoin('user_security', 'user_security.user_id', 'memberships.user_id')
      .select(['memberships.user_id', 'users.email', 'memberships.role', 'user_security.email_verified_at'])
      .where('memberships.account_id', '=', accountId)
      .orderBy('memberships.created_at')
      .execute(),
    db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(RECENT)
      .execute(),
    // Purchases apart from the ledger's recent rows: an old one may still be the one to refund.
    db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('reason', 'in', ['purchase', 'auto_topup'])
      .orderBy('id', 'desc')
      .limit(RECENT)
      .execute(),
    db
      .selectFrom('audit_log')
      .select('target')
      .where('account_id', '=', accountId)
      .where('action', '=', 'operator.purchase_refunded')
      .execute(),
    listAdFunds(db, { accountId, limit: RECENT }),
    listCampaigns(db, accountId, now),
    db
      .selectFrom('products')
      .select(['id', 'name', 'brand', 'status', 'archived_at', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
    listAudit(db, { accountId, limit: RECENT }),
  ]);
  const earnings = await earningsBalances(db, { accountId, now, holdMs: options.earningsHoldMs });
  return {
    ...accountSummary(account),
    members: members.map((member) => ({
      user_id: member.user_id,
      email: member.email,
      role: member.role,
      email_verified: member.email_verified_at !== null,
    })),
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
    ledger: ledger.map(ledgerEntryView),
    purchases: purchases.map((purchase) => ({
      ...ledgerEntryView(purchase),
      refunded: refunded.some((entry) => entry.target === purchase.public_id),
    })),
    ad_funds_cents: millicentsToCents(Number(account.ad_funds_millicents)),
    ad_funds_ledger: adFunds.entries.map(adFundsEntryView),
    campaigns,
    products: products.map((product) => ({
      id: product.id,
      name: product.name,
      brand: product.brand,
      status: product.archived_at !== null ? ('archived' as const) : product.status,
      created_at: iso(product.created_at),
    })),
    payouts,
    audit_log: audit.entries,
    earnings,
  };
}

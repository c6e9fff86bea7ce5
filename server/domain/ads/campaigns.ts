import { type Kysely, sql } from 'kysely';
import type { Campaign, Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { centsToMillicents, millicentsToCents, utcDay } from './money.js';

type Executor = Kysely<Database>;

export type CampaignStatus = 'active' | 'paused' | 'exhausted' | 'scheduled' | 'ended';

export interface CampaignView {
  id: string;
  name: string;
  product_ids: string[];
  cpm_cents: number;
  total_budget_cents: number;
  daily_budget_cents: number | null;
  starts_at: string | null;
  ends_at: string | null;
  status: CampaignStatus;
  spent_cents: number;
  spent_today_cents: number;
  impressions: number;
  unbilled_impressions: number;
  invalid_impressions: number;
  created_at: string;
}

const isoOrNull = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** The stored status plus what the dates and today's spend say: ended, scheduled, or exhausted for today. */
export function campaignStatus(campaign: Campaign, now: number): CampaignStatus {
  if (campaign.ends_at !== null && Number(campaign.ends_at) <= now) return 'ended';
  if (campaign.status !== 'active') return campaign.status;
  if (campaign.starts_at !== null && Number(campaign.starts_at) > now) return 'scheduled';
  const spentToday = Number(campaign.spend_day) === utcDay(now) ? Number(campaign.spent_today_millicents) : 0;
  if (
    campaign.daily_budget_millicents !== null &&
    spentToday + campaign.cpm_cents > Number(campaign.daily_budget_millicents)
  )
    return 'exhausted';
  return 'active';
}

function view(campaign: Campaign, productIds: string[], now: number): CampaignView {
  const spentToday = Number(campaign.spend_day) === utcDay(now) ? Number(campaign.spent_today_millicents) : 0;
  return {
    id: campaign.id,
    name: campaign.name,
    product_ids: productIds,
    cpm_cents: campaign.cpm_cents,
    total_budget_cents: millicentsToCents(campaign.total_budget_millicents),
    daily_budget_cents:
      campaign.daily_budget_millicents === null ? null : millicentsToCents(campaign.daily_budget_millicents),
    starts_at: isoOrNull(campaign.starts_at),
    ends_at: isoOrNull(campaign.ends_at),
    status: campaignStatus(campaign, now),
    spent_cents: millicentsToCents(campaign.spent_millicents),
    spent_today_cents: millicentsToCents(spentToday),
    impressions: Number(campaign.impressions),
    unbilled_impressions: Number(campaign.unbilled_impressions),
    invalid_impressions: Number(campaign.invalid_impressions),
    created_at: new Date(campaign.created_at).toISOString(),
  };
}

async function productIdsOf(db: Executor, campaignIds: string[]): Promise<Map<string, string[]>> {
  const byCampaign = new Map<string, string[]>(campaignIds.map((id) => [id, []]));
  if (campaignIds.length === 0) return byCampaign;
  const rows = await db
    .selectFrom('campaign_products')
    .select(['campaign_id', 'product_id'])
    .where('campaign_id', 'in', campaignIds)
    .orderBy('product_id')
    .execute();
  for (const row of rows) byCampaign.get(row.campaign_id)?.push(row.product_id);
  return byCampaign;
}

export async function findOwnCampaign(db: Executor, accountId: string, id: string): Promise<Campaign> {
  const campaign = await db
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!campaign) throw new AppError('not_found', `No campaign ${id} in this account.`);
  return campaign;
}

export async function getCampaign(db: Executor, accountId: string, id: string, now: number): Promise<CampaignView> {
  const campaign = await findOwnCampaign(db, accountId, id);
  return view(campaign, (await productIdsOf(db, [id])).get(id) ?? [], now);
}

export async function listCampaigns(db: Executor, accountId: string, now: number): Promise<CampaignView[]> {
  const rows = await db
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const products = await productIdsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => view(row, products.get(row.id) ?? [], now));
}

function invalid(path: string, message: string): AppError {
  return new AppError('invalid_request', message, { details: [{ path, message }] });
}

export interface NewCampaign {
  name: string;
  productIds: string[];
  cpmCents: number;
  totalBudgetCents: number;
  dailyBudgetCents?: number;
  startsAt?: number;
  endsAt?: number;
}

export async function createCampaign(
  db: Executor,
  accountId: string,
  input: NewCampaign,
  now: number,
  origin: AuditOrigin,
): Promise<CampaignView> {
  if (input.startsAt !== undefined && input.endsAt !== undefined && input.endsAt <= input.startsAt)
    throw invalid('ends_at', 'ends_at must be after starts_at.');
  const productIds = [...new Set(input.productIds)];
  const own = await db
    .selectFrom('products')
    .select('id')
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .where('id', 'in', productIds)
    .execute();
  const known = new Set(own.map((row) => row.id));
  const missing = productIds.find((id) => !known.has(id));
  if (missing) throw new AppError('not_found', `No product ${missing} in this account.`);
  const id = newId('campaign');
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('campaigns')
      .values({
        id,
        account_id: accountId,
        name: input.name,
        cpm_cents: input.cpmCents,
        total_budget_millicents: centsToMillicents(input.totalBudgetCents),
        daily_budget_millicents:
          input.dailyBudgetCents === undefined ? null : centsToMillicents(input.dailyBudgetCents),
        starts_at: input.startsAt ?? null,
        ends_at: input.endsAt ?? null,
        status: 'active',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx
      .insertInto('campaign_products')
      .values(productIds.map((productId) => ({ campaign_id: id, product_id: productId })))
      .execute();
    await recordAudit(trx, {
      accountId,
      action: 'ads.campaign_created',
      origin,
      target: id,
      details: {
        name: input.name,
        product_ids: productIds,
        cpm_cents: input.cpmCents,
        total_budget_cents: input.totalBudgetCents,
        daily_budget_cents: input.dailyBudgetCents ?? null,
      },
      now,
    });
  });
  return getCampaign(db, accountId, id, now);
}

export interface CampaignChanges {
  status?: 'active' | 'paused';
  totalBudgetCents?: number;
  dailyBudgetCents?: number | null;
  endsAt?: number | null;
}

/** PATCH: pause or resume, change budgets or the end date. Raising the total budget revives an exhausted campaign. */
export async function updateCampaign(
  db: Executor,
  accountId: string,
  id: string,
  changes: CampaignChanges,
  now: number,
  origin: AuditOrigin,
): Promise<CampaignView> {
  const campaign = await findOwnCampaign(db, accountId, id);
  if (
    changes.endsAt !== undefined &&
    changes.endsAt !== null &&
    campaign.starts_at !== null &&
    changes.endsAt <= Number(campaign.starts_at)
  )
    throw invalid('ends_at', 'ends_at must be after starts_at.');
  const total = changes.totalBudgetCents === undefined ? undefined : centsToMillicents(changes.totalBudgetCents);
  const raised = total !== undefined && total > Number(campaign.total_budget_millicents);
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('campaigns')
      .set({
        ...(total !== undefined && { total_budget_millicents: total }),
        ...(changes.dailyBudgetCents !== undefined && {
          daily_budget_millicents:
            changes.dailyBudgetCents === null ? null : centsToMillicents(changes.dailyBudgetCents),
        }),
        ...(changes.endsAt !== undefined && { ends_at: changes.endsAt }),
        // Resuming or raising the budget makes it active again; the next impression checks whether it can pay.
        ...((changes.status !== undefined || raised) && {
          status: changes.status ?? sql<'active'>`case when status = 'exhausted' then 'active' else status end`,
          exhausted_reason: null,
        }),
        updated_at: now,
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .execute();
    // What was asked for, and what it was before: budgets in cents, dates as ISO text.
    await recordAudit(trx, {
      accountId,
      action: 'ads.campaign_updated',
      origin,
      target: id,
      details: {
        ...(changes.status !== undefined && { status: changes.status, previous_status: campaign.status }),
        ...(changes.totalBudgetCents !== undefined && {
          total_budget_cents: changes.totalBudgetCents,
          previous_total_budget_cents: millicentsToCents(Number(campaign.total_budget_millicents)),
        }),
        ...(changes.dailyBudgetCents !== undefined && {
          daily_budget_cents: changes.dailyBudgetCents,
          previous_daily_budget_cents:
            campaign.daily_budget_millicents === null
              ? null
              : millicentsToCents(Number(campaign.daily_budget_millicents)),
        }),
        ...(changes.endsAt !== undefined && { ends_at: iso(changes.endsAt), previous_ends_at: iso(campaign.ends_at) }),
      },
      now,
    });
  });
  return getCampaign(db, accountId, id, now);
}

/** New funds bring back the campaigns that stopped for lack of them; the caller holds the account's row. */
export async function reviveFundedCampaigns(trx: Executor, accountId: string, now: number): Promise<void> {
  await trx
    .updateTable('campaigns')
    .set({ status: 'active', exhausted_reason: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('status', '=', 'exhausted')
    .where('exhausted_reason', '=', 'funds')
    .execute();
}

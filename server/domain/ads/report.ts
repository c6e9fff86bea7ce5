import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { findOwnCampaign } from './campaigns.js';
import { daySeries } from './day-series.js';
import { millicentsToCents } from './money.js';

type Executor = Kysely<Database>;

/**
 * GET /ads/report: the advertiser's impressions per day (every day of the range) and per campaign, kept apart:
 * billed (`impressions`, what the spend paid for), unbilled (the budget or funds could not cover them) and invalid
 * (declared invalid traffic by an operator and refunded).
 */
export async function adsReport(
  db: Executor,
  input: { accountId: string; fromDay: number; toDay: number; campaignId?: string },
) {
  if (input.campaignId !== undefined) await findOwnCampaign(db, input.accountId, input.campaignId);
  let rows = db
    .selectFrom('campaign_daily')
    .where('campaign_daily.account_id', '=', input.accountId)
    .where('campaign_daily.day', '>=', input.fromDay)
    .where('campaign_daily.day', '<=', input.toDay);
  if (input.campaignId !== undefined) rows = rows.where('campaign_daily.campaign_id', '=', input.campaignId);
  const figures = [
    sql<number>`sum(campaign_daily.impressions)`.as('impressions'),
    sql<number>`sum(campaign_daily.unbilled_impressions)`.as('unbilled'),
    sql<number>`sum(campaign_daily.invalid_impressions)`.as('invalid'),
    sql<number>`sum(campaign_daily.spend_millicents)`.as('spend'),
  ] as const;
  const [byDay, byCampaign] = await Promise.all([
    rows
      .select(['campaign_daily.day', ...figures])
      .groupBy('campaign_daily.day')
      .execute(),
    rows
      .innerJoin('campaigns', 'campaigns.id', 'campaign_daily.campaign_id')
      .select(['campaigns.id', 'campaigns.name', ...figures])
      .groupBy(['campaigns.id', 'campaigns.name'])
      .orderBy('campaigns.id')
      .execute(),
  ]);
  const shown = (row: { impressions: number; unbilled: number; invalid: number; spend: number } | undefined) => ({
    impressions: Number(row?.impressions ?? 0),
    unbilled_impressions: Number(row?.unbilled ?? 0),
    invalid_impressions: Number(row?.invalid ?? 0),
    spend_cents: millicentsToCents(Number(row?.spend ?? 0)),
  });
  return {
    daily: daySeries(input, byDay, shown),
    campaigns: byCampaign.map((row) => ({ id: row.id, name: row.name, ...shown(row) })),
  };
}

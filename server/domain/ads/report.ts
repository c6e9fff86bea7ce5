import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { findOwnCampaign } from './campaigns.js';
import { dayToDate, millicentsToCents } from './money.js';

type Executor = Kysely<Database>;

/** GET /ads/report: the advertiser's impressions and spend per day (every day of the range) and per campaign. */
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
  const [byDay, byCampaign] = await Promise.all([
    rows
      .select([
        'campaign_daily.day',
        sql<number>`sum(campaign_daily.impressions)`.as('impressions'),
        sql<number>`sum(campaign_daily.unbilled_impressions)`.as('unbilled'),
        sql<number>`sum(campaign_daily.spend_millicents)`.as('spend'),
      ])
      .groupBy('campaign_daily.day')
      .execute(),
    rows
      .innerJoin('campaigns', 'campaigns.id', 'campaign_daily.campaign_id')
      .select([
        'campaigns.id',
        'campaigns.name',
        sql<number>`sum(campaign_daily.impressions)`.as('impressions'),
        sql<number>`sum(campaign_daily.spend_millicents)`.as('spend'),
      ])
      .groupBy(['campaigns.id', 'campaigns.name'])
      .orderBy('campaigns.id')
      .execute(),
  ]);
  const days = new Map(byDay.map((row) => [Number(row.day), row]));
  const daily = [];
  for (let day = input.fromDay; day <= input.toDay; day++) {
    const row = days.get(day);
    daily.push({
      date: dayToDate(day),
      impressions: Number(row?.impressions ?? 0),
      unbilled_impressions: Number(row?.unbilled ?? 0),
      spend_cents: millicentsToCents(Number(row?.spend ?? 0)),
    });
  }
  return {
    daily,
    campaigns: byCampaign.map((row) => ({
      id: row.id,
      name: row.name,
      impressions: Number(row.impressions),
      spend_cents: millicentsToCents(Number(row.spend)),
    })),
  };
}

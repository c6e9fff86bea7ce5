import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { newId } from '../../ids.js';
import { impressionCost, splitRevenue, utcDay } from './money.js';
import { addToCounters } from '../../../db/counters.js';

type Executor = Kysely<Database>;

interface PaidPlacement {
  id: number;
  campaign_id: string;
  cpm_cents: number;
  advertiser_id: string;
}

export type BillingOutcome = 'billed' | 'unbilled';

/**
 * Takes `cost` from the advertiser's funds, then from the campaign's total and today's budget, with conditional
 * updates: both or neither. Funds are taken first because every transaction locks an advertiser's account before
 * its campaigns (the placements are billed in that order), so two serves never wait on each other in a cycle.
 */
async function takeBudget(trx: Executor, placement: PaidPlacement, cost: number, now: number) {
  const funds = await trx
    .updateTable('accounts')
    .set({ ad_funds_millicents: sql`ad_funds_millicents - ${cost}` })
    .where('id', '=', placement.advertiser_id)
    .where('ad_funds_millicents', '>=', cost)
    .executeTakeFirst();
  if (Number(funds.numUpdatedRows) !== 1) return 'funds' as const;
  const day = utcDay(now);
  const spentToday = sql<number>`case when spend_day = ${day} then spent_today_millicents else 0 end`;
  // spent_today is assigned before spend_day: MySQL evaluates SET left to right with the new values.
  const campaign = await trx
    .updateTable('campaigns')
    .set({
      spent_millicents: sql`spent_millicents + ${cost}`,
      impressions: sql`impressions + 1`,
      spent_today_millicents: sql`${spentToday} + ${cost}`,
      spend_day: day,
    })
    .where('id', '=', placement.campaign_id)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
    .where(sql<boolean>`spent_millicents + ${cost} <= total_budget_millicents`)
    .where(sql<boolean>`(daily_budget_millicents is null or ${spentToday} + ${cost} <= daily_budget_millicents)`)
    .executeTakeFirst();
  if (Number(campaign.numUpdatedRows) === 1) return 'billed' as const;
  // Nothing else saw the funds taken above (the row is still locked by this transaction): give them back.
  await trx
    .updateTable('accounts')
    .set({ ad_funds_millicents: sql`ad_funds_millicents + ${cost}` })
    .where('id', '=', placement.advertiser_id)
    .execute();
  return 'campaign' as const;
}

/** A campaign that cannot pay: its total budget is spent (exhausted), or it is paused, ended or out of today's budget. */
async function markCampaignShort(trx: Executor, placement: PaidPlacement, cost: number, now: number) {
  await trx
    .updateTable('campaigns')
    .set({ status: 'exhausted', exhausted_reason: 'budget', updated_at: now })
    .where('id', '=', placement.campaign_id)
    .where('status', '=', 'active')
    .where(sql<boolean>`spent_millicents + ${cost} > total_budget_millicents`)
    .execute();
}

async function recordUnbilled(trx: Executor, placement: PaidPlacement, now: number) {
  await trx
    .updateTable('placements')
    .set({ unbilled_impressions: sql`unbilled_impressions + 1` })
    .where('id', '=', placement.id)
    .execute();
  await trx
    .updateTable('campaigns')
    .set({ unbilled_impressions: sql`unbilled_impressions + 1` })
    .where('id', '=', placement.campaign_id)
    .execute();
  await addToCounters(
    trx,
    'campaign_daily',
    ['campaign_id', 'day'],
    {
      campaign_id: placement.campaign_id,
      day: utcDay(now),
      account_id: placement.advertiser_id,
      unbilled_impressions: 1,
    },
    { unbilled_impressions: 1 },
  );
}

async function recordBilled(
  trx: Executor,
  placement: PaidPlacement,
  input: { imageId: string; agentId: string | null; address: string; cost: number; now: number },
) {
  const day = utcDay(input.now);
  const { cost } = input;
  // Before the claim is redeemed nobody earns a share: the service keeps all of it.
  const split = input.agentId ? splitRevenue(cost) : { agent: 0, service: cost };
  await trx
    .updateTable('placements')
    .set({
      billed_impressions: sql`billed_impressions + 1`,
      spend_millicents: sql`spend_millicents + ${cost}`,
    })
    .where('id', '=', placement.id)
    .execute();
  // The evidence of this one impression: what an invalid-traffic declaration finds, and what the earnings hold counts.
  await trx
    .insertInto('impression_charges')
    .values({
      campaign_id: placement.campaign_id,
      advertiser_id: placement.advertiser_id,
      placement_id: placement.id,
      image_id: input.imageId,
      agent_id: input.agentId,
      day,
      address: input.address,
      cost_millicents: cost,
      agent_millicents: split.agent,
      service_millicents: split.service,
      counted_at: input.now,
      invalid_traffic_id: null,
    })
    .execute();
  const daily = {
    impressions: 1,
    spend_millicents: cost,
    agent_millicents: split.agent,
    service_millicents: split.service,
  };
  await addToCounters(
    trx,
    'campaign_daily',
    ['campaign_id', 'day'],
    { campaign_id: placement.campaign_id, day, account_id: placement.advertiser_id, ...daily },
    daily,
  );
  await addToCounters(
    trx,
    'ad_funds_ledger',
    ['spend_key'],
    {
      public_id: newId('adFunds'),
      account_id: placement.advertiser_id,
      delta_millicents: -cost,
      reason: 'spend',
      reference: placement.campaign_id,
      spend_key: `${placement.campaign_id}:${day}`,
      created_at: input.now,
    },
    { delta_millicents: -cost },
  );
  if (input.agentId) {
    await addToCounters(
      trx,
      'earnings_daily',
      ['account_id', 'image_id', 'day'],
      { account_id: input.agentId, image_id: input.imageId, day, impressions: 1, earned_millicents: split.agent },
      { impressions: 1, earned_millicents: split.agent },
    );
  }
}

/**
 * Bills one counted impression of a placed image, inside the transaction that counts it: each paid placement costs
 * its cpm in milli-cents, taken from the campaign's budgets and the advertiser's funds. What cannot be covered is
 * counted unbilled; short funds exhaust every campaign of the advertiser, a spent total budget that campaign.
 */
export async function billImpression(
  trx: Executor,
  input: { imageId: string; address: string; now: number },
): Promise<BillingOutcome[]> {
  const paid = (await trx
    .selectFrom('placements')
    .innerJoin('campaigns', 'campaigns.id', 'placements.campaign_id')
    .select([
      'placements.id',
      'placements.campaign_id',
      'placements.cpm_cents',
      'campaigns.account_id as advertiser_id',
    ])
    .where('placements.image_id', '=', input.imageId)
    .where('placements.cpm_cents', '>', 0)
    .orderBy('campaigns.account_id')
    .orderBy('placements.campaign_id')
    .orderBy('placements.id')
    .execute()) as PaidPlacement[];
  if (paid.length === 0) return [];
  const claim = await trx
    .selectFrom('images')
    .leftJoin('claims', 'claims.code', 'images.claim_code')
    .select('claims.redeemed_by')
    .where('images.id', '=', input.imageId)
    .executeTakeFirst();
  const agentId = claim?.redeemed_by ?? null;
  const outcomes: BillingOutcome[] = [];
  for (const placement of paid) {
    const cost = impressionCost(placement.cpm_cents);
    const taken = await takeBudget(trx, placement, cost, input.now);
    if (taken === 'billed') {
      await recordBilled(trx, placement, {
        imageId: input.imageId,
        agentId,
        address: input.address,
        cost,
        now: input.now,
      });
      outcomes.push('billed');
      continue;
    }
    if (taken === 'funds') {
      await trx
        .updateTable('campaigns')
        .set({ status: 'exhausted', exhausted_reason: 'funds', updated_at: input.now })
        .where('account_id', '=', placement.advertiser_id)
        .where('status', '=', 'active')
        .execute();
    } else {
      await markCampaignShort(trx, placement, cost, input.now);
    }
    await recordUnbilled(trx, placement, input.now);
    outcomes.push('unbilled');
  }
  return outcomes;
}

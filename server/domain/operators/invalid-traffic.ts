import { type Kysely, sql } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { lockAccount } from '../accounts/accounts.js';
import { changeAdFunds } from '../ads/funds.js';
import { dayToDate, millicentsToCents } from '../ads/money.js';
import { addressHash } from '../ads/viewers.js';
import { recordAudit } from '../audit/audit.js';
import { earningsMillicents } from '../payouts/balances.js';
import type { OperatorChange } from '../audit/audit.js';

type Executor = Kysely<Database>;

export interface InvalidTrafficDeclaration {
  id: string;
  campaign_id: string;
  date: string;
  address: string | null;
  /** Billed impressions found valid until now and declared invalid by this declaration (0 when declared before). */
  invalid_impressions: number;
  refunded_millicents: number;
  refunded_cents: number;
  /** The agents' unpaid share taken back; what they had already been paid stays theirs and the service bears it. */
  earnings_taken_back_millicents: number;
}

interface AgentShare {
  agentId: string;
  imageId: string;
  impressions: number;
  share: number;
  pendingShare: number;
}

/**
 * An operator declares a campaign's traffic of one UTC day (of one client address, or all of it) invalid. Every
 * billed impression it covers that is still valid is marked with this declaration, the advertiser gets its cost
 * back (an `adjustment` in the funds ledger, the campaign's spend and budgets lowered), and each agent gives back
 * their share as far as it is not already requested or paid out. All in one transaction with the audit entries,
 * to the milli-cent: spend = agents' earnings + the service's share still holds. Declaring the same traffic again
 * finds nothing valid left and refunds nothing. The advertiser's account is locked first, as billing does, so a
 * declaration and an impression (or two declarations) never interleave.
 */
export async function declareInvalidTraffic(
  db: Executor,
  input: OperatorChange & { campaignId: string; day: number; address: string | null; holdMs: number },
): Promise<InvalidTrafficDeclaration> {
  const addressKey = input.address === null ? null : await addressHash(db, input.address, input.now);
  // A campaign's advertiser never changes: read it before the transaction, whose first reads must be its locks.
  const owner = await db
    .selectFrom('campaigns')
    .select('account_id')
    .where('id', '=', input.campaignId)
    .executeTakeFirst();
  if (!owner) throw new AppError('not_found', `No campaign ${input.campaignId}.`);
  return inTransaction(db, async (trx) => {
    const covered = (query = trx.selectFrom('impression_charges')) => {
      let scoped = query.where('campaign_id', '=', input.campaignId).where('day', '=', input.day);
      if (addressKey !== null) scoped = scoped.where('address', '=', addressKey);
      return scoped;
    };
    // Locks come first, before any plain read: on MySQL the transaction's snapshot is taken at its first plain read,
    // so everything read after them (payouts an agent asked for a moment ago included) is current. The advertiser
    // first (billing's order: no charge of this campaign appears or changes from here on), then the charges
    // themselves, then the agents whose share goes back, in id order.
    await lockAccount(trx, owner.account_id);
    const agentQuery = covered()
      .select('agent_id')
      .where('invalid_traffic_id', 'is', null)
      .where('agent_id', 'is not', null);
    const agentRows = await (isMysql(trx) ? agentQuery.forUpdate() : agentQuery).execute();
    const agentIds = [...new Set(agentRows.map((row) => row.agent_id as string))].sort();
    for (const agentId of agentIds) if (agentId !== owner.account_id) await lockAccount(trx, agentId);
    const campaign = await trx
      .selectFrom('campaigns')
      .select(['id', 'account_id', 'spend_day'])
      .where('id', '=', input.campaignId)
      .executeTakeFirstOrThrow();
    const balances = new Map(
      await Promise.all(
        agentIds.map(
          async (agentId) =>
            [
              agentId,
              await earningsMillicents(trx, { accountId: agentId, now: input.now, holdMs: input.holdMs }),
            ] as const,
        ),
      ),
    );

    const id = newId('invalidTraffic');
    await trx
      .updateTable('impression_charges')
      .set({ invalid_traffic_id: id })
      .where((eb) =>
        eb.and([
          eb('campaign_id', '=', campaign.id),
          eb('day', '=', input.day),
          ...(addressKey !== null ? [eb('address', '=', addressKey)] : []),
          eb('invalid_traffic_id', 'is', null),
        ]),
      )
      .execute();
    const mine = trx.selectFrom('impression_charges').where('invalid_traffic_id', '=', id);
    const [totals, byPlacement, byAgentImage] = await Promise.all([
      mine
        .select([sql<number>`count(*)`.as('impressions'), sql<number>`coalesce(sum(cost_millicents), 0)`.as('cost')])
        .executeTakeFirstOrThrow(),
      mine
        .select(['placement_id', sql<number>`count(*)`.as('impressions'), sql<number>`sum(cost_millicents)`.as('cost')])
        .groupBy('placement_id')
        .execute(),
      mine
        .where('agent_id', 'is not', null)
        .select([
          'agent_id',
          'image_id',
          sql<number>`count(*)`.as('impressions'),
          sql<number>`sum(agent_millicents)`.as('share'),
          sql<number>`sum(case when counted_at > ${input.now - input.holdMs} then agent_millicents else 0 end)`.as(
            'pending',
          ),
        ])
        .groupBy(['agent_id', 'image_id'])
        .orderBy('agent_id')
        .orderBy('image_id')
        .execute(),
    ]);
    const impressions = Number(totals.impressions);
    const cost = Number(totals.cost);

    // Each agent gives back their share up to what is theirs to lose: matured earnings not yet requested or paid,
    // plus the held share of these very impressions (held earnings were never payable).
    const shares: AgentShare[] = byAgentImage.map((row) => ({
      agentId: row.agent_id as string,
      imageId: row.image_id,
      impressions: Number(row.impressions),
      share: Number(row.share),
      pendingShare: Number(row.pending),
    }));
    let takenBack = 0;
    const takenByAgent = new Map<string, { millicents: number; impressions: number }>();
    for (const agentId of new Set(shares.map((s) => s.agentId))) {
      const own = shares.filter((s) => s.agentId === agentId);
      const figures = balances.get(agentId);
      if (!figures) throw new Error(`agent ${agentId} was not locked before its share was read`);
      const share = own.reduce((sum, s) => sum + s.share, 0);
      const pendingShare = own.reduce((sum, s) => sum + s.pendingShare, 0);
      const unpaid = figures.earned - figures.pending - figures.committed + pendingShare;
      let left = Math.max(0, Math.min(share, unpaid));
      takenByAgent.set(agentId, { millicents: left, impressions: own.reduce((sum, s) => sum + s.impressions, 0) });
      takenBack += left;
      for (const part of own) {
        const take = Math.min(part.share, left);
        left -= take;
        await trx
          .updateTable('earnings_daily')
          .set({
            impressions: sql`impressions - ${part.impressions}`,
            invalid_impressions: sql`invalid_impressions + ${part.impressions}`,
            earned_millicents: sql`earned_millicents - ${take}`,
          })
          .where('account_id', '=', agentId)
          .where('image_id', '=', part.imageId)
          .where('day', '=', input.day)
          .execute();
      }
    }

    if (impressions > 0) {
      for (const row of byPlacement)
        await trx
          .updateTable('placements')
          .set({
            billed_impressions: sql`billed_impressions - ${Number(row.impressions)}`,
            invalid_impressions: sql`invalid_impressions + ${Number(row.impressions)}`,
            spend_millicents: sql`spend_millicents - ${Number(row.cost)}`,
          })
          .where('id', '=', Number(row.placement_id))
          .execute();
      await trx
        .updateTable('campaign_daily')
        .set({
          impressions: sql`impressions - ${impressions}`,
          invalid_impressions: sql`invalid_impressions + ${impressions}`,
          spend_millicents: sql`spend_millicents - ${cost}`,
          agent_millicents: sql`agent_millicents - ${takenBack}`,
          // What an agent keeps (already paid out) is the service's loss, not the advertiser's.
          service_millicents: sql`service_millicents - ${cost - takenBack}`,
        })
        .where('campaign_id', '=', campaign.id)
        .where('day', '=', input.day)
        .execute();
      const sameDay = Number(campaign.spend_day) === input.day;
      await trx
        .updateTable('campaigns')
        .set({
          spent_millicents: sql`spent_millicents - ${cost}`,
          impressions: sql`impressions - ${impressions}`,
          invalid_impressions: sql`invalid_impressions + ${impressions}`,
          ...(sameDay ? { spent_today_millicents: sql`spent_today_millicents - ${cost}` } : {}),
          updated_at: input.now,
        })
        .where('id', '=', campaign.id)
        .execute();
      // The budget paid back may cover impressions again.
      await trx
        .updateTable('campaigns')
        .set({ status: 'active', exhausted_reason: null })
        .where('id', '=', campaign.id)
        .where('status', '=', 'exhausted')
        .where('exhausted_reason', '=', 'budget')
        .where(sql<boolean>`spent_millicents + cpm_cents <= total_budget_millicents`)
        .execute();
      if (cost > 0)
        await changeAdFunds(trx, {
          accountId: campaign.account_id,
          deltaMillicents: cost,
          reason: 'adjustment',
          reference: id,
          now: input.now,
        });
    }

    const declaration: InvalidTrafficDeclaration = {
      id,
      campaign_id: campaign.id,
      date: dayToDate(input.day),
      address: input.address,
      invalid_impressions: impressions,
      refunded_millicents: cost,
      refunded_cents: millicentsToCents(cost),
      earnings_taken_back_millicents: takenBack,
    };
    await recordAudit(trx, {
      accountId: campaign.account_id,
      action: 'operator.invalid_traffic_declared',
      origin: input.origin,
      target: campaign.id,
      details: { ...declaration, reason: input.reason },
      now: input.now,
    });
    for (const [agentId, taken] of takenByAgent)
      await recordAudit(trx, {
        accountId: agentId,
        action: 'operator.earnings_taken_back',
        origin: input.origin,
        target: id,
        details: {
          campaign_id: campaign.id,
          date: declaration.date,
          invalid_impressions: taken.impressions,
          taken_back_millicents: taken.millicents,
          reason: input.reason,
        },
        now: input.now,
      });
    return declaration;
  });
}

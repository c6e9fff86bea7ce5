import { type Kysely, sql } from 'kysely';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import type { Placement } from '../../imaging/engine.js';
import { billImpression } from './billing.js';
import { millicentsToCents } from './money.js';
import { markPlaced, type ProductSelection } from './selection.js';

type Executor = Kysely<Database>;

/** A placement as the place-products response shows it: which campaign paid for it (none for house products). */
export type SponsoredPlacement = Placement & { campaign_id: string | null; sponsored: boolean };

/** Records the engine's placements with the campaign and cpm each was selected with; answers them as shown. */
export async function recordPlacements(
  trx: Executor,
  input: { imageId: string; placements: Placement[]; selection: ProductSelection; now: number },
): Promise<SponsoredPlacement[]> {
  const shown = input.placements.map((placement) => {
    const chosen = input.selection.byProductId.get(placement.product_id);
    const campaignId = chosen?.campaign_id ?? null;
    return { ...placement, campaign_id: campaignId, sponsored: campaignId !== null, cpm: chosen?.cpm_cents ?? 0 };
  });
  if (shown.length === 0) return [];
  await trx
    .insertInto('placements')
    .values(
      shown.map((placement) => ({
        image_id: input.imageId,
        product_id: placement.product_id,
        x: placement.x,
        y: placement.y,
        width: placement.width,
        height: placement.height,
        revenue_per_mille_cents: placement.cpm,
        campaign_id: placement.campaign_id,
        cpm_cents: placement.cpm,
        created_at: input.now,
      })),
    )
    .execute();
  await markPlaced(trx, shown, input.now);
  return shown.map(({ cpm: _cpm, ...placement }) => placement);
}

/** A viewer's (a client address's) impressions of one image count at most once in this window. */
export const IMPRESSION_WINDOW_MS = 86_400_000;

/**
 * Takes the viewer's impression of the image for this window: true when none was counted in the last 24 hours. The
 * primary key makes two simultaneous first views count once; a later view moves the row only once it has expired.
 */
async function claimView(db: Executor, view: { imageId: string; viewer: string; now: number }): Promise<boolean> {
  try {
    await db
      .insertInto('impression_views')
      .values({ image_id: view.imageId, viewer: view.viewer, counted_at: view.now })
      .execute();
    return true;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const moved = await db
    .updateTable('impression_views')
    .set({ counted_at: view.now })
    .where('image_id', '=', view.imageId)
    .where('viewer', '=', view.viewer)
    .where('counted_at', '<=', view.now - IMPRESSION_WINDOW_MS)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

/**
 * One serve of a placed image: one impression for each of its placements, unless this viewer's (address's)
 * impression of it was already counted within 24 hours, and the paid ones billed, all in one transaction (a failure
 * counts and bills nothing). `viewer` is the address's keyed hash (viewers.ts). Returns whether it counted.
 */
export async function countImpression(
  db: Executor,
  view: { imageId: string; viewer: string; now: number },
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await claimView(trx, view))) return false;
    await trx
      .updateTable('placements')
      .set((eb) => ({ impressions: eb('impressions', '+', 1) }))
      .where('image_id', '=', view.imageId)
      .execute();
    await billImpression(trx, { imageId: view.imageId, address: view.viewer, now: view.now });
    return true;
  });
}

export interface AdRevenue {
  impressions: number;
  /** What advertisers paid for those impressions, in US cents (rounded down). */
  gross_cents: number;
  /** The agent's share as credited to their earnings, in US cents (rounded down). */
  earned_cents: number;
}

/**
 * Ad revenue of the placed images in the claims an agent redeemed: impressions and advertisers' spend from the
 * placements, the agent's share from their earnings. Sums stay in milli-cents and are rounded once at the end.
 */
export async function adRevenueForAgent(db: Executor, accountId: string): Promise<AdRevenue> {
  const [row, earned] = await Promise.all([
    db
      .selectFrom('placements')
      .innerJoin('images', 'images.id', 'placements.image_id')
      .innerJoin('claims', 'claims.code', 'images.claim_code')
      .where('claims.redeemed_by', '=', accountId)
      .select([
        sql<number>`coalesce(sum(placements.impressions), 0)`.as('impressions'),
        sql<number>`coalesce(sum(placements.spend_millicents), 0)`.as('spend'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('earnings_daily')
      .where('account_id', '=', accountId)
      .select(sql<number>`coalesce(sum(earned_millicents), 0)`.as('earned'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    impressions: Number(row.impressions),
    gross_cents: millicentsToCents(Number(row.spend)),
    earned_cents: millicentsToCents(Number(earned.earned)),
  };
}

import { type Kysely, sql } from 'kysely';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Database } from '../../../db/schema.js';
import type { Placement } from '../../imaging/engine.js';

type Executor = Kysely<Database>;

/** The agent who redeemed a placed image keeps this share of its ad revenue; the service keeps the rest. */
export const AGENT_REVENUE_SHARE = 0.5;

export async function recordPlacements(
  trx: Executor,
  input: { imageId: string; placements: Placement[]; ratesCents: ReadonlyMap<string, number>; now: number },
): Promise<void> {
  if (input.placements.length === 0) return;
  await trx
    .insertInto('placements')
    .values(
      input.placements.map((placement) => ({
        image_id: input.imageId,
        product_id: placement.product_id,
        x: placement.x,
        y: placement.y,
        width: placement.width,
        height: placement.height,
        revenue_per_mille_cents: input.ratesCents.get(placement.product_id) ?? 0,
        created_at: input.now,
      })),
    )
    .execute();
}

/** A viewer's impressions of one image count at most once in this window. */
export const IMPRESSION_WINDOW_MS = 3_600_000;

/**
 * Takes the viewer's impression of the image for this hour: true when none was counted in the last hour. The
 * primary key makes two simultaneous first views count once; a later view moves the row only if it is an hour old.
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
 * One serve of a placed image: one impression for each of its placements, as a single counter update, unless this
 * viewer's impression of it was already counted within the hour. Returns whether it counted.
 */
export async function countImpression(
  db: Executor,
  view: { imageId: string; viewer: string; now: number },
): Promise<boolean> {
  if (!(await claimView(db, view))) return false;
  await db
    .updateTable('placements')
    .set((eb) => ({ impressions: eb('impressions', '+', 1) }))
    .where('image_id', '=', view.imageId)
    .execute();
  return true;
}

export interface AdRevenue {
  impressions: number;
  /** All revenue of those impressions, in US cents (rounded down). */
  gross_cents: number;
  /** The agent's 50 % share, in US cents (rounded down). */
  earned_cents: number;
}

/**
 * Ad revenue of the placed images in the claims an agent redeemed. Sums are taken in "milli-cents"
 * (impressions × cents per mille) and rounded once at the end, so many small amounts are not lost to rounding.
 */
export async function adRevenueForAgent(db: Executor, accountId: string): Promise<AdRevenue> {
  const row = await db
    .selectFrom('placements')
    .innerJoin('images', 'images.id', 'placements.image_id')
    .innerJoin('claims', 'claims.code', 'images.claim_code')
    .where('claims.redeemed_by', '=', accountId)
    .select([
      sql<number>`coalesce(sum(placements.impressions), 0)`.as('impressions'),
      sql<number>`coalesce(sum(placements.impressions * placements.revenue_per_mille_cents), 0)`.as('milli_cents'),
    ])
    .executeTakeFirstOrThrow();
  const milliCents = Number(row.milli_cents);
  return {
    impressions: Number(row.impressions),
    gross_cents: Math.floor(milliCents / 1000),
    earned_cents: Math.floor((milliCents * AGENT_REVENUE_SHARE) / 1000),
  };
}

import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';

type Executor = Kysely<Database>;

/** Free re-renders are offered for this long after the image was first made. */
export const FREE_RERENDER_WINDOW_MS = 24 * 3_600_000;

/**
 * Takes one of the image's free re-renders, if any is left and the image is young enough. The conditional update is
 * the check: two requests at once can never both take the last one.
 */
export async function takeFreeRerender(
  trx: Executor,
  input: { rootImageId: string; free: number; now: number },
): Promise<boolean> {
  const updated = await trx
    .updateTable('images')
    .set((eb) => ({ free_rerenders_used: eb('free_rerenders_used', '+', 1) }))
    .where('id', '=', input.rootImageId)
    .where('free_rerenders_used', '<', input.free)
    .where('created_at', '>', input.now - FREE_RERENDER_WINDOW_MS)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A free re-render that failed gives its turn back. */
export async function returnFreeRerender(db: Executor, rootImageId: string): Promise<void> {
  await db
    .updateTable('images')
    .set((eb) => ({ free_rerenders_used: eb('free_rerenders_used', '-', 1) }))
    .where('id', '=', rootImageId)
    .where('free_rerenders_used', '>', 0)
    .execute();
}

/**
 * Moves the claim's place of an image's line (the first image and its re-renders) to the re-render `imageId`: the
 * one of the line in a claim leaves it (its URL keeps serving), the new one joins, and the claim's count stays.
 * Returns the claim's code, or null when no image of the line is in a claim.
 */
export async function replaceInClaim(
  trx: Executor,
  input: { rootImageId: string; imageId: string },
): Promise<string | null> {
  const current = await trx
    .selectFrom('images')
    .select(['id', 'claim_code'])
    .where((eb) => eb.or([eb('id', '=', input.rootImageId), eb('rerender_of', '=', input.rootImageId)]))
    .where('claim_code', 'is not', null)
    .where('id', '!=', input.imageId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  if (!current?.claim_code) return null;
  // Conditional: of two re-renders of one line at once, only one takes its place; the other stays out of the claim.
  const left = await trx
    .updateTable('images')
    .set({ claim_code: null })
    .where('id', '=', current.id)
    .where('claim_code', '=', current.claim_code)
    .executeTakeFirst();
  if (Number(left.numUpdatedRows) !== 1) return null;
  await trx.updateTable('images').set({ claim_code: current.claim_code }).where('id', '=', input.imageId).execute();
  return current.claim_code;
}

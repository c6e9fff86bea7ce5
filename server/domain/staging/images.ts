import type { Kysely } from 'kysely';
import type { Database, DisclosureProfile, Image, ImageKind } from '../../../db/schema.js';
import type { EngineImage } from '../../imaging/engine.js';
import type { FidelityChange } from '../../imaging/fidelity/index.js';
import { AppError } from '../../errors.js';
import { IMAGE_COUNTER, recordUsage } from '../usage/rollup.js';
import { type OutputOrigin, serializeScene } from './originals.js';

type Executor = Kysely<Database>;

/** An engine output already written to storage under `storageName`, waiting for its row. */
export interface StoredOutput {
  id: string;
  storageName: string;
  output: Pick<EngineImage, 'contentType' | 'width' | 'height' | 'engineMs'>;
  /** For staged, decluttered and placed outputs: how to recognise them and what they were drawn on. */
  origin?: OutputOrigin;
  /** The capability of its original's public page. */
  originalToken?: string;
  /** The seed it was drawn with. */
  seed?: number;
  /** Its fidelity score, for the outputs that were checked. */
  fidelity?: number;
  /** What the check found changed there (kinds and boxes in the photo's pixels). */
  changes?: readonly FidelityChange[];
}

export async function insertImages(
  trx: Executor,
  input: {
    /** The engine that drew the outputs, for the fleet report. */
    engine?: string | null;
    accountId: string;
    keyId: number | null;
    claimCode: string | null;
    kind: ImageKind;
    style: string | null;
    roomType: string | null;
    sourceImageId?: string | null;
    disclosure?: DisclosureProfile | null;
    /** A re-render: the first image of its line. */
    rerenderOf?: string | null;
    outputs: StoredOutput[];
    now: number;
  },
): Promise<Image[]> {
  const rows: Image[] = input.outputs.map((stored) => ({
    id: stored.id,
    account_id: input.accountId,
    key_id: input.keyId,
    claim_code: input.claimCode,
    kind: input.kind,
    storage_name: stored.storageName,
    content_type: stored.output.contentType,
    width: stored.output.width,
    height: stored.output.height,
    style: input.style,
    room_type: input.roomType,
    source_image_id: input.sourceImageId ?? null,
    output_sha256: stored.origin?.outputSha256 ?? null,
    original_storage_name: stored.origin?.originalStorageName ?? null,
    scene: serializeScene(stored.origin?.scene ?? null),
    original_token: stored.originalToken ?? null,
    disclosure: input.disclosure ?? null,
    seed: stored.seed ?? null,
    rerender_of: input.rerenderOf ?? null,
    free_rerenders_used: 0,
    engine: input.engine ?? null,
    fidelity: stored.fidelity ?? null,
    fidelity_changes: stored.changes ? JSON.stringify(stored.changes) : null,
    engine_ms: stored.output.engineMs ?? null,
    created_at: input.now,
  }));
  if (rows.length > 0) await trx.insertInto('images').values(rows).execute();
  await recordUsage(trx, {
    accountId: input.accountId,
    keyId: input.keyId,
    at: input.now,
    counts: { [IMAGE_COUNTER[input.kind]]: rows.length },
  });
  return rows;
}

/** An image this account created (any kind), or undefined: other accounts' ids read as unknown. */
export async function findOwnImage(db: Executor, accountId: string, imageId: string): Promise<Image | undefined> {
  return db
    .selectFrom('images')
    .selectAll()
    .where('id', '=', imageId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function findImageByStorageName(
  db: Executor,
  storageName: string,
): Promise<Pick<Image, 'id' | 'kind' | 'content_type'> | undefined> {
  return db
    .selectFrom('images')
    .select(['id', 'kind', 'content_type'])
    .where('storage_name', '=', storageName)
    .executeTakeFirst();
}

/** The agent's dashboard: every image in the claims this account redeemed, newest claim first. */
export async function listRedeemedImages(
  db: Executor,
  accountId: string,
  page: { limit: number; startingAfter?: string },
): Promise<{ images: Image[]; hasMore: boolean }> {
  let query = db
    .selectFrom('images')
    .innerJoin('claims', 'claims.code', 'images.claim_code')
    .selectAll('images')
    .where('claims.redeemed_by', '=', accountId);
  if (page.startingAfter !== undefined) {
    const last = await db
      .selectFrom('images')
      .innerJoin('claims', 'claims.code', 'images.claim_code')
      .select(['images.id', 'images.created_at', 'claims.redeemed_at'])
      .where('images.id', '=', page.startingAfter)
      .where('claims.redeemed_by', '=', accountId)
      .executeTakeFirst();
    if (!last || last.redeemed_at === null) {
      throw new AppError(
        'not_found',
        `No image ${page.startingAfter} in your dashboard: pass the id of the last image of the previous page.`,
      );
    }
    const { id, created_at: createdAt, redeemed_at: redeemedAt } = last;
    // After the cursor in the list's order: claims newest first, a claim's images oldest first.
    query = query.where((eb) =>
      eb.or([
        eb('claims.redeemed_at', '<', redeemedAt),
        eb.and([
          eb('claims.redeemed_at', '=', redeemedAt),
          eb.or([
            eb('images.created_at', '>', createdAt),
            eb.and([eb('images.created_at', '=', createdAt), eb('images.id', '>', id)]),
          ]),
        ]),
      ]),
    );
  }
  const rows = await query
    .orderBy('claims.redeemed_at', 'desc')
    .orderBy('images.created_at', 'asc')
    .orderBy('images.id', 'asc')
    .limit(page.limit + 1)
    .execute();
  return { images: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** One page of the agent's dashboard images (same order as listRedeemedImages), with the total for paging. */
export async function pageRedeemedImages(
  db: Executor,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<{ images: Image[]; total: number }> {
  const redeemed = db
    .selectFrom('images')
    .innerJoin('claims', 'claims.code', 'images.claim_code')
    .where('claims.redeemed_by', '=', accountId);
  const [images, counted] = await Promise.all([
    redeemed
      .selectAll('images')
      .orderBy('claims.redeemed_at', 'desc')
      .orderBy('images.created_at', 'asc')
      .orderBy('images.id', 'asc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    redeemed.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { images, total: Number(counted.total) };
}

/** The image whose original's page is `/o/<token>`, or undefined. */
export async function findImageByOriginalToken(db: Executor, token: string): Promise<Image | undefined> {
  return db.selectFrom('images').selectAll().where('original_token', '=', token).executeTakeFirst();
}

/** What an image's fidelity check found changed; null for images that were not checked (or checked before). */
export function fidelityChanges(image: Pick<Image, 'fidelity_changes'>): FidelityChange[] | null {
  if (image.fidelity_changes === null) return null;
  try {
    const parsed: unknown = JSON.parse(image.fidelity_changes);
    return Array.isArray(parsed) ? (parsed as FidelityChange[]) : null;
  } catch {
    return null;
  }
}

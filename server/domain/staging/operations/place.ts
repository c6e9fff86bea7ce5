import type { Image } from '../../../../db/schema.js';
import { inTransaction } from '../../../../db/transaction.js';
import { AppError } from '../../../errors.js';
import { newId } from '../../../ids.js';
import { DEFAULT_ROOM_TYPE, isRoomType, type RoomType } from '../../../imaging/catalog-data.js';
import type { AcceptedFormat } from '../../../imaging/engine.js';
import { recordPlacements, type SponsoredPlacement } from '../../ads/revenue.js';
import { selectProducts } from '../../ads/selection.js';
import { addImagesToClaim } from '../../claims/claims.js';
import { getBalance } from '../../credits/ledger.js';
import { newOriginalToken } from '../../disclosure/disclosure.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { hasImageSource, type ImageSources, readImageSources } from '../image-input.js';
import { findOwnImage, insertImages } from '../images.js';
import { keepOrigin, knownOutputOf, recogniseOutput } from '../originals.js';
import { assertRooms, canonicalClaimCode, inspectAll, type OnStored, only, store, undoOnFailure } from './steps.js';

export interface PlaceResult {
  image: Image;
  placements: SponsoredPlacement[];
  creditsRemaining: number;
}

export interface PreparedPlace {
  operation: 'place_products';
  inputs: [Buffer];
  formats: AcceptedFormat[];
  ids: [string];
  /** The request's `image_id`: the input is that image's bytes. */
  sourceImageId: string | null;
  roomType: RoomType | null;
  maxProducts: number;
  originalTokens: [string];
  claimCode: string | null;
}

/** Reads and checks a place-products request: the image from the request or, by `imageId`, this account's own. */
export async function preparePlace(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { sources: ImageSources; imageId?: string; roomType?: RoomType; maxProducts: number; claimCode?: string },
): Promise<PreparedPlace> {
  let input: Buffer;
  if (request.imageId !== undefined) {
    if (hasImageSource(request.sources)) {
      throw new AppError('invalid_request', 'Send either image_id or an image, not both.', {
        details: [{ path: 'image_id', message: 'Send either image_id or an image, not both.' }],
      });
    }
    const source = await findOwnImage(deps.db, caller.accountId, request.imageId);
    const stored = source ? await deps.storage.get(source.storage_name) : null;
    if (!source || !stored)
      throw new AppError('not_found', `No image ${request.imageId} among the images this API user created.`);
    input = stored.data;
  } else {
    input = only(await readImageSources(request.sources, deps.network, { allowMany: false }));
  }
  const formats = await inspectAll(deps.engine, [input]);
  await assertRooms([input]);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  return {
    operation: 'place_products',
    inputs: [input],
    formats,
    ids: [newId('image')],
    sourceImageId: request.imageId ?? null,
    roomType: request.roomType ?? null,
    maxProducts: request.maxProducts,
    originalTokens: [newOriginalToken()],
    claimCode,
  };
}

/**
 * POST /api/v1/place-products: free. Products are selected by ../ads/selection.ts for the room (the source image's
 * room when not given) and style.
 */
export async function performPlace(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedPlace,
  onStored?: OnStored<PlaceResult>,
): Promise<PlaceResult> {
  const [input] = prepared.inputs;
  const { claimCode } = prepared;
  let source =
    prepared.sourceImageId === null ? undefined : await findOwnImage(deps.db, caller.accountId, prepared.sourceImageId);
  // One of our outputs (by id, or its exact bytes) is re-rendered from its original with products swapped into the
  // scene; any other photo gets products in its free space.
  const known = source ? await knownOutputOf(deps, source) : await recogniseOutput(deps, caller.accountId, input);
  source ??= known?.image;
  const roomType: RoomType =
    prepared.roomType ?? (isRoomType(source?.room_type) ? source.room_type : DEFAULT_ROOM_TYPE);
  const selection = await selectProducts(deps.db, { roomType, style: source?.style ?? null, now: deps.clock.now() });
  const { products } = selection;
  const id = prepared.ids[0];

  return undoOnFailure(deps, null, async (written) => {
    const redraw = known?.scene ? { original: known.original, scene: known.scene } : null;
    const output = await deps.engine.placeProducts(redraw?.original ?? input, {
      products: products.map(({ id: productId, name, brand, category, asset }) => ({
        id: productId,
        name,
        brand,
        category,
        asset,
      })),
      maxProducts: prepared.maxProducts,
      ...(redraw && { scene: redraw.scene }),
    });
    // Drawn on the input itself (no scene of ours to redraw), the output still remembers the input's original, if any.
    const origin = await keepOrigin(
      deps,
      written,
      id,
      known?.original ?? input,
      known && !redraw ? { ...output, scene: undefined } : output,
    );
    const stored = { ...(await store(deps, written, id, output)), origin, originalToken: prepared.originalTokens[0] };
    return inTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      if (claimCode) await addImagesToClaim(trx, { code: claimCode, accountId: caller.accountId, count: 1, now });
      const row = only(
        await insertImages(trx, {
          engine: deps.engine.capabilities.engine,
          accountId: caller.accountId,
          keyId: caller.keyId,
          claimCode,
          kind: 'placed',
          style: source?.style ?? null,
          roomType,
          sourceImageId: source?.id ?? null,
          // Still a staged picture: it discloses as the one it was placed into (nothing drawn: it has no mark).
          disclosure: source?.disclosure ?? null,
          outputs: [stored],
          now,
        }),
      );
      const placements = await recordPlacements(trx, {
        imageId: row.id,
        placements: output.placements,
        selection,
        now,
      });
      const { credits } = await getBalance(trx, caller.accountId);
      const result = { image: row, placements, creditsRemaining: credits };
      await onStored?.(trx, result);
      return result;
    });
  });
}

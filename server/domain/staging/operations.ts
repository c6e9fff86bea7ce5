import type { Claim, Image } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { RoomType, Style } from '../../imaging/catalog-data.js';
import { DEFAULT_ROOM_TYPE, isRoomType } from '../../imaging/catalog-data.js';
import type { EngineImage, ImageEngine, Placement } from '../../imaging/engine.js';
import { isDecodeFailure } from '../../imaging/input-rules.js';
import { newImageName } from '../../storage/storage.js';
import { productsForRoom } from '../ads/products.js';
import { recordPlacements } from '../ads/revenue.js';
import { addImagesToClaim, assertClaimOpenForIssuer, issueClaim } from '../claims/claims.js';
import { getBalance } from '../credits/ledger.js';
import { emitEvent } from '../events/outbox.js';
import { type Charge, chargeCredits, refundCredits } from './charge.js';
import type { ApiCaller, ImagingDeps } from './deps.js';
import { hasImageSource, type ImageSources, readImageSources } from './image-input.js';
import { findOwnImage, insertImages, type StoredOutput } from './images.js';
import { log } from '../../observability/logger.js';

/*
 * The three image operations, in one order: read and inspect every input (bad input never charges), check the
 * claim and take the credits in one transaction, process, store the files, then record the rows and events in one
 * transaction. Anything failing after the charge deletes the files written and refunds in the same request.
 */

export interface StageResult {
  claim: Claim;
  images: Image[];
  creditsRemaining: number;
}

export interface EnhanceResult {
  image: Image;
  creditsRemaining: number;
}

export interface PlaceResult {
  image: Image;
  placements: Placement[];
  creditsRemaining: number;
}

async function inspectAll(engine: ImageEngine, inputs: Buffer[]): Promise<void> {
  for (const input of inputs) await engine.inspect(input);
}

/** Damaged pixel data only shows when decoding; that is the client's bad image (422), not our fault. */
function asClientError(error: unknown): unknown {
  if (!(error instanceof AppError) && isDecodeFailure(error)) return new AppError('invalid_image', 'The image could not be decoded; it may be damaged.');
  return error;
}

/** Runs `work`, and if it fails: deletes the files it wrote, refunds the charge (if any), rethrows. */
async function undoOnFailure<T>(deps: ImagingDeps, charge: Charge | null, work: (written: string[]) => Promise<T>): Promise<T> {
  const written: string[] = [];
  try {
    return await work(written);
  } catch (error) {
    await Promise.allSettled(written.map((name) => deps.storage.delete(name)));
    if (charge) {
      try {
        await refundCredits(deps.db, charge, deps.clock.now());
      } catch (refundError) {
        log.error({ err: refundError, credits: charge.credits, reference: charge.reference }, 'refund failed');
      }
    }
    throw asClientError(error);
  }
}

async function store(deps: ImagingDeps, written: string[], id: string, output: EngineImage): Promise<StoredOutput> {
  const storageName = newImageName(id, output.extension);
  written.push(storageName);
  await deps.storage.put(storageName, output.data, output.contentType);
  return { id, storageName, output };
}

/** Checks the claim named by `claim_code` (if any) against this account; a closed claim refuses before any charge. */
function claimCheck(deps: ImagingDeps, caller: ApiCaller, claimCode: string | null) {
  if (!claimCode) return undefined;
  return async (trx: ImagingDeps['db']) => {
    await assertClaimOpenForIssuer(trx, { typed: claimCode, accountId: caller.accountId, now: deps.clock.now() });
  };
}

async function canonicalClaimCode(deps: ImagingDeps, caller: ApiCaller, typed: string | undefined): Promise<string | null> {
  if (typed === undefined) return null;
  return assertClaimOpenForIssuer(deps.db, { typed, accountId: caller.accountId, now: deps.clock.now() });
}

/** POST /api/v1/stage: 1 credit per image, all or nothing; a new claim unless `claimCode` names an open one. */
export async function stageImages(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { sources: ImageSources; style: Style; roomType: RoomType; claimCode?: string },
): Promise<StageResult> {
  const inputs = await readImageSources(request.sources, deps.network, { allowMany: true });
  await inspectAll(deps.engine, inputs);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  const ids = inputs.map(() => newId('image'));
  const charge: Charge = { caller, credits: inputs.length, reason: 'stage', reference: ids[0]! };
  const balance = await chargeCredits(deps.db, charge, () => deps.clock.now(), claimCheck(deps, caller, claimCode));

  return undoOnFailure(deps, charge, async (written) => {
    const stored: StoredOutput[] = [];
    // One at a time: ten 50-megapixel decodes at once would hold gigabytes of pixels.
    for (const [index, input] of inputs.entries()) {
      const output = await deps.engine.stage(input, { style: request.style, roomType: request.roomType });
      stored.push(await store(deps, written, ids[index]!, output));
    }
    return inTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      const claim = claimCode
        ? await addImagesToClaim(trx, { code: claimCode, accountId: caller.accountId, count: stored.length, now })
        : await issueClaim(trx, { accountId: caller.accountId, keyId: caller.keyId, imageCount: stored.length, now });
      const images = await insertImages(trx, {
        accountId: caller.accountId,
        keyId: caller.keyId,
        claimCode: claim.code,
        kind: 'staged',
        style: request.style,
        roomType: request.roomType,
        outputs: stored,
        now,
      });
      for (const image of images) {
        await emitEvent(trx, {
          accountId: caller.accountId,
          keyId: caller.keyId,
          event: 'staging.complete',
          data: {
            image_url: deps.storage.url(image.storage_name),
            claim_code: claim.code,
            style: request.style,
            room_type: request.roomType,
            credits_used: 1,
            credits_remaining: balance,
            image_id: image.id,
          },
          now,
        });
      }
      return { claim, images, creditsRemaining: balance };
    });
  });
}

/** POST /api/v1/enhance: 1 credit; the long edge becomes 3840 px. Joins `claimCode`'s claim when given. */
export async function enhanceImage(deps: ImagingDeps, caller: ApiCaller, request: { sources: ImageSources; claimCode?: string }): Promise<EnhanceResult> {
  const [input] = await readImageSources(request.sources, deps.network, { allowMany: false });
  await inspectAll(deps.engine, [input!]);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  const id = newId('image');
  const charge: Charge = { caller, credits: 1, reason: 'enhance', reference: id };
  const balance = await chargeCredits(deps.db, charge, () => deps.clock.now(), claimCheck(deps, caller, claimCode));

  return undoOnFailure(deps, charge, async (written) => {
    const stored = await store(deps, written, id, await deps.engine.enhance(input!));
    return inTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      if (claimCode) await addImagesToClaim(trx, { code: claimCode, accountId: caller.accountId, count: 1, now });
      const [image] = await insertImages(trx, {
        accountId: caller.accountId,
        keyId: caller.keyId,
        claimCode,
        kind: 'enhanced',
        style: null,
        roomType: null,
        outputs: [stored],
        now,
      });
      return { image: image!, creditsRemaining: balance };
    });
  });
}

/**
 * POST /api/v1/place-products: free. The image comes from the request or, by `imageId`, from this account's stored
 * images; products are the active catalog entries that suit the room (the source image's room when not given).
 */
export async function placeProducts(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { sources: ImageSources; imageId?: string; roomType?: RoomType; maxProducts: number; claimCode?: string },
): Promise<PlaceResult> {
  let input: Buffer;
  let source: Image | undefined;
  if (request.imageId !== undefined) {
    if (hasImageSource(request.sources)) {
      throw new AppError('invalid_request', 'Send either image_id or an image, not both.', { details: [{ path: 'image_id', message: 'Send either image_id or an image, not both.' }] });
    }
    source = await findOwnImage(deps.db, caller.accountId, request.imageId);
    const stored = source ? await deps.storage.get(source.storage_name) : null;
    if (!source || !stored) throw new AppError('not_found', `No image ${request.imageId} among the images this API user created.`);
    input = stored.data;
  } else {
    [input] = (await readImageSources(request.sources, deps.network, { allowMany: false })) as [Buffer];
  }
  await inspectAll(deps.engine, [input]);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  const roomType: RoomType = request.roomType ?? (isRoomType(source?.room_type) ? source.room_type : DEFAULT_ROOM_TYPE);
  const products = await productsForRoom(deps.db, roomType);
  const id = newId('image');

  return undoOnFailure(deps, null, async (written) => {
    const output = await deps.engine.placeProducts(input, {
      products: products.map(({ id: productId, name, brand, category, asset }) => ({ id: productId, name, brand, category, asset })),
      maxProducts: request.maxProducts,
    });
    const stored = await store(deps, written, id, output);
    const rates = new Map(products.map((product) => [product.id, product.revenue_per_mille_cents]));
    const image = await inTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      if (claimCode) await addImagesToClaim(trx, { code: claimCode, accountId: caller.accountId, count: 1, now });
      const [row] = await insertImages(trx, {
        accountId: caller.accountId,
        keyId: caller.keyId,
        claimCode,
        kind: 'placed',
        style: source?.style ?? null,
        roomType,
        sourceImageId: source?.id ?? null,
        outputs: [stored],
        now,
      });
      await recordPlacements(trx, { imageId: row!.id, placements: output.placements, ratesCents: rates, now });
      return row!;
    });
    const { credits } = await getBalance(deps.db, caller.accountId);
    return { image, placements: output.placements, creditsRemaining: credits };
  });
}

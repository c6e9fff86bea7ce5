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
import { finalizeHold, keepHoldAlive, releaseHold } from '../credits/holds.js';
import { chargeCredits, type HeldCharge } from './charge.js';
import type { ApiCaller, ImagingDeps } from './deps.js';
import { hasImageSource, type ImageSources, readImageSources } from './image-input.js';
import { findOwnImage, insertImages, type StoredOutput } from './images.js';
import { keepOrigin, knownOutputOf, originalsOf, recogniseOutput } from './originals.js';
import { log } from '../../observability/logger.js';

/*
 * The three image operations, in one order: read and inspect every input (bad input never charges), check the
 * claim and take the credits as a hold in one transaction, process, store the files, then make the hold final and
 * record the rows and events in one transaction. Anything failing after the charge deletes the files written and
 * refunds the hold in the same request; a request that dies is refunded by the hold sweeper.
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

/**
 * Runs `work` while keeping the charge's hold alive; if it fails: deletes the files it wrote, refunds the hold (if
 * any), rethrows. A refund that fails here is not lost: the hold stays, its lease runs out and a sweeper refunds it.
 */
async function undoOnFailure<T>(deps: ImagingDeps, held: HeldCharge | null, work: (written: string[]) => Promise<T>): Promise<T> {
  const written: string[] = [];
  const lease = held ? keepHoldAlive(deps.db, held.holdId, { clock: deps.clock, timeoutMs: deps.chargeHoldTimeoutMs }) : null;
  try {
    return await work(written);
  } catch (error) {
    await lease?.stop();
    await Promise.allSettled(written.map((name) => deps.storage.delete(name)));
    if (held) {
      try {
        await releaseHold(deps.db, held.holdId, { now: deps.clock.now() });
      } catch (refundError) {
        log.error({ err: refundError, holdId: held.holdId }, 'refund failed; the hold sweeper refunds it within CHARGE_HOLD_TIMEOUT');
      }
    }
    throw asClientError(error);
  } finally {
    await lease?.stop();
  }
}

async function store(deps: ImagingDeps, written: string[], id: string, output: EngineImage): Promise<StoredOutput> {
  const storageName = newImageName(id, output.extension);
  written.push(storageName);
  await deps.storage.put(storageName, output.data, output.contentType);
  return { id, storageName, output };
}

function holdOptions(deps: ImagingDeps) {
  return { now: () => deps.clock.now(), timeoutMs: deps.chargeHoldTimeoutMs, topUp: deps.autoTopUp };
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
  // An image we already staged (or placed products in) is staged from its original, not under a second set of furniture.
  const inputs = await originalsOf(deps, caller.accountId, await readImageSources(request.sources, deps.network, { allowMany: true }));
  await inspectAll(deps.engine, inputs);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  const ids = inputs.map(() => newId('image'));
  const held = await chargeCredits(deps.db, { caller, credits: inputs.length, reason: 'stage', reference: ids[0]! }, holdOptions(deps), claimCheck(deps, caller, claimCode));
  const balance = held.balanceAfter;

  return undoOnFailure(deps, held, async (written) => {
    const stored: StoredOutput[] = [];
    // One at a time: ten 50-megapixel decodes at once would hold gigabytes of pixels.
    for (const [index, input] of inputs.entries()) {
      const output = await deps.engine.stage(input, { style: request.style, roomType: request.roomType });
      stored.push({ ...(await store(deps, written, ids[index]!, output)), origin: await keepOrigin(deps, written, ids[index]!, input, output) });
    }
    return inTransaction(deps.db, async (trx) => {
      await finalizeHold(trx, held.holdId);
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
  const held = await chargeCredits(deps.db, { caller, credits: 1, reason: 'enhance', reference: id }, holdOptions(deps), claimCheck(deps, caller, claimCode));

  return undoOnFailure(deps, held, async (written) => {
    const stored = await store(deps, written, id, await deps.engine.enhance(input!));
    return inTransaction(deps.db, async (trx) => {
      await finalizeHold(trx, held.holdId);
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
      return { image: image!, creditsRemaining: held.balanceAfter };
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
  // One of our outputs (by id, or its exact bytes) is re-rendered from its original with products swapped into the
  // scene; any other photo gets products in its free space.
  const known = source ? await knownOutputOf(deps, source) : await recogniseOutput(deps, caller.accountId, input);
  source ??= known?.image;
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  const roomType: RoomType = request.roomType ?? (isRoomType(source?.room_type) ? source.room_type : DEFAULT_ROOM_TYPE);
  const products = await productsForRoom(deps.db, roomType);
  const id = newId('image');

  return undoOnFailure(deps, null, async (written) => {
    const redraw = known?.scene ? { original: known.original, scene: known.scene } : null;
    const output = await deps.engine.placeProducts(redraw?.original ?? input, {
      products: products.map(({ id: productId, name, brand, category, asset }) => ({ id: productId, name, brand, category, asset })),
      maxProducts: request.maxProducts,
      ...(redraw && { scene: redraw.scene }),
    });
    // Drawn on the input itself (no scene of ours to redraw), the output still remembers the input's original, if any.
    const origin = await keepOrigin(deps, written, id, known?.original ?? input, known && !redraw ? { ...output, scene: undefined } : output);
    const stored = { ...(await store(deps, written, id, output)), origin };
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

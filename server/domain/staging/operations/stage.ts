import type { Claim, DisclosureProfile, Image } from '../../../../db/schema.js';
import { inTransaction } from '../../../../db/transaction.js';
import { newId } from '../../../ids.js';
import type { RoomType, Style } from '../../../imaging/catalog-data.js';
import { DEFAULT_STYLE, isStyle } from '../../../imaging/catalog-data.js';
import type { AcceptedFormat, Label } from '../../../imaging/engine.js';
import { addImagesToClaim, claimListing, issueClaim } from '../../claims/claims.js';
import { finalizeHold } from '../../credits/holds.js';
import { labelOf, newOriginalToken } from '../../disclosure/disclosure.js';
import { emitEvents } from '../../events/outbox.js';
import type { HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { renderChecked } from '../fidelity-check.js';
import { type ImageSources, readImageSources } from '../image-input.js';
import { fidelityChanges, insertImages, type StoredOutput } from '../images.js';
import { keepOrigin, originalsOf } from '../originals.js';
import { creditsPerStagedImage, requestSeed, variationSeed } from '../variations.js';
import {
  assertEngineSupports,
  assertRooms,
  canonicalClaimCode,
  disclosureFields,
  disclosureOf,
  drawingFor,
  inspectAll,
  type OnStored,
  store,
  undoOnFailure,
} from './steps.js';

export interface StageResult {
  claim: Claim;
  images: Image[];
  creditsRemaining: number;
}

/**
 * A validated stage request: the inputs (originals of our own outputs) and the ids its images will get, one per
 * input × variation, input by input. Variation v of every input is drawn with seed `seed + v`; `declutter` empties
 * each input first.
 */
export interface PreparedStage {
  operation: 'stage';
  inputs: Buffer[];
  /** Each input's format, as inspected (an asynchronous request stores the inputs under it). */
  formats: AcceptedFormat[];
  ids: string[];
  style: Style;
  roomType: RoomType;
  variations: number;
  /** The listing's seed: variation v of every input is drawn with `seed + v`. */
  seed: number;
  declutter: boolean;
  disclosure: DisclosureProfile;
  /** One per id: the capability of each image's original page. */
  originalTokens: string[];
  claimCode: string | null;
}

/** Reads and checks a stage request; an image we already staged is staged from its original, not restaged. */
export async function prepareStage(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: {
    sources: ImageSources;
    /** Unset: the claim's style when staging into one that has it, else the default. */
    style?: Style;
    roomType: RoomType;
    variations?: number;
    /** Unset: the claim's seed when staging into one that has it, else a new one. */
    seed?: number;
    declutter?: boolean;
    disclosure?: DisclosureProfile;
    label?: Label;
    claimCode?: string;
  },
): Promise<PreparedStage> {
  const disclosure = await disclosureOf(deps, caller, request);
  assertEngineSupports(deps.engine, { ...request, label: labelOf(disclosure) });
  const variations = request.variations ?? 1;
  const inputs = await originalsOf(
    deps,
    caller.accountId,
    await readImageSources(request.sources, deps.network, { allowMany: true }),
  );
  const formats = await inspectAll(deps.engine, inputs);
  await assertRooms(inputs);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  // Photos of one listing look alike: a stage into a claim reuses what the claim's first stage used.
  const listing = claimCode ? await claimListing(deps.db, claimCode) : undefined;
  const ids = inputs.flatMap(() => Array.from({ length: variations }, () => newId('image')));
  return {
    operation: 'stage',
    inputs,
    formats,
    ids,
    style: request.style ?? (isStyle(listing?.style) ? listing.style : DEFAULT_STYLE),
    roomType: request.roomType,
    variations,
    // One seed for every photo of a listing: the request's, the claim's, or the one the first photo always gets.
    seed: requestSeed(request.seed ?? listing?.seed ?? undefined, inputs[0] ?? Buffer.alloc(0)),
    declutter: request.declutter ?? false,
    disclosure,
    originalTokens: ids.map(() => newOriginalToken()),
    claimCode,
  };
}

/**
 * POST /api/v1/stage: every variation of every image, all or nothing, in one claim (a new one unless `claimCode`
 * names an open one). A decluttered photo is emptied once and its variations are all staged from it.
 */
export async function performStage(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedStage,
  held: HeldCharge,
  onStored?: OnStored<StageResult>,
): Promise<StageResult> {
  const { inputs, ids, claimCode } = prepared;
  const balance = held.balanceAfter;
  return undoOnFailure(deps, held, async (written) => {
    const stored: StoredOutput[] = [];
    // One at a time: ten 50-megapixel decodes at once would hold gigabytes of pixels.
    for (const [index, input] of inputs.entries()) {
      // A decluttered room is checked against the photo, and each staging of it against the room.
      const emptied = prepared.declutter
        ? await renderChecked(deps, input, { seed: prepared.seed, drawing: {} }, (seed) =>
            deps.engine.declutter(input, { seed, label: 'none' }),
          )
        : null;
      const room = emptied?.output.data ?? input;
      for (let variation = 0; variation < prepared.variations; variation++) {
        const position = index * prepared.variations + variation;
        const id = ids[position] ?? newId('image');
        const originalToken = prepared.originalTokens[position] ?? newOriginalToken();
        const drawing = drawingFor(deps, prepared.disclosure, originalToken);
        const { output, seed, fidelity, changes } = await renderChecked(
          deps,
          room,
          { seed: variationSeed(prepared.seed, variation), drawing },
          (seed) => deps.engine.stage(room, { style: prepared.style, roomType: prepared.roomType, seed, ...drawing }),
        );
        stored.push({
          ...(await store(deps, written, id, output)),
          origin: await keepOrigin(deps, written, id, input, output),
          originalToken,
          seed,
          fidelity: Math.min(fidelity, emptied?.fidelity ?? 1),
          changes: [...(emptied?.changes ?? []), ...changes],
        });
      }
    }
    return inTransaction(deps.db, async (trx) => {
      await finalizeHold(trx, held.holdId);
      const now = deps.clock.now();
      const listing = { style: prepared.style, seed: prepared.seed };
      const claim = claimCode
        ? await addImagesToClaim(trx, {
            code: claimCode,
            accountId: caller.accountId,
            count: stored.length,
            now,
            listing,
          })
        : await issueClaim(trx, {
            accountId: caller.accountId,
            keyId: caller.keyId,
            imageCount: stored.length,
            now,
            listing,
          });
      const images = await insertImages(trx, {
        engine: deps.engine.capabilities.engine,
        accountId: caller.accountId,
        keyId: caller.keyId,
        claimCode: claim.code,
        kind: 'staged',
        style: prepared.style,
        roomType: prepared.roomType,
        disclosure: prepared.disclosure,
        outputs: stored,
        now,
      });
      await emitEvents(
        trx,
        images.map((image, index) => {
          const variation = index % prepared.variations;
          return {
            accountId: caller.accountId,
            keyId: caller.keyId,
            event: 'staging.complete',
            data: {
              image_url: deps.storage.url(image.storage_name),
              claim_code: claim.code,
              style: prepared.style,
              room_type: prepared.roomType,
              credits_used: creditsPerStagedImage(prepared),
              credits_remaining: balance,
              image_id: image.id,
              variation,
              seed: image.seed ?? variationSeed(prepared.seed, variation),
              fidelity: image.fidelity,
              changes: fidelityChanges(image),
              ...disclosureFields(deps, image),
            },
            now,
          };
        }),
      );
      const result = { claim, images, creditsRemaining: balance };
      await onStored?.(trx, result);
      return result;
    });
  });
}

import type { Claim, DisclosureProfile, Image } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { RoomType, Style } from '../../imaging/catalog-data.js';
import { DEFAULT_ROOM_TYPE, DEFAULT_STYLE, isRoomType, isStyle } from '../../imaging/catalog-data.js';
import type { AcceptedFormat, EngineImage, ImageEngine, Label, Scene } from '../../imaging/engine.js';
import { isDecodeFailure } from '../../imaging/input-rules.js';
import { assertRoomPhoto } from '../../imaging/room-check.js';
import { newImageName } from '../../storage/storage.js';
import { recordPlacements, type SponsoredPlacement } from '../ads/revenue.js';
import { selectProducts } from '../ads/selection.js';
import { addImagesToClaim, assertClaimOpenForIssuer, claimListing, issueClaim } from '../claims/claims.js';
import { getBalance } from '../credits/ledger.js';
import { emitEvent, emitEvents } from '../events/outbox.js';
import { finalizeHold, keepHoldAlive, releaseHold } from '../credits/holds.js';
import { type Charge, chargeCredits, type HeldCharge } from './charge.js';
import type { ApiCaller, ImagingDeps } from './deps.js';
import { hasImageSource, type ImageSources, readImageSources } from './image-input.js';
import { fidelityChanges, findOwnImage, insertImages, type StoredOutput } from './images.js';
import { keepOrigin, knownOutputOf, originalsOf, recogniseOutput } from './originals.js';
import { declutterResponse, enhanceResponse, placeResponse, rerenderResponse, stageResponse } from './responses.js';
import { drawingOf, labelOf, newOriginalToken, originalPageUrl, profileOfLabel } from '../disclosure/disclosure.js';
import { disclosureCaption } from '../disclosure/disclosure.js';
import { replaceInClaim, returnFreeRerender, takeFreeRerender } from './rerenders.js';
import { creditsPerStagedImage, freshSeed, requestSeed, variationSeed } from './variations.js';
import { countImageFailure } from './failures.js';
import { renderChecked } from './fidelity-check.js';
import { getStagingSettings } from '../settings/staging.js';
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

export type DeclutterResult = EnhanceResult;

export interface RerenderResult {
  image: Image;
  /** The claim it took its place in (null: the image's line is in no claim). */
  claim: Claim | null;
  creditsUsed: 0 | 1;
  creditsRemaining: number;
}

export interface PlaceResult {
  image: Image;
  placements: SponsoredPlacement[];
  creditsRemaining: number;
}

/*
 * Each operation runs in two halves: `prepare…` reads, inspects and checks the request (a bad one fails here,
 * charging nothing), then the charge is taken, then `perform…` does the work. A synchronous request runs both
 * halves at once; an asynchronous one (../jobs) keeps the prepared request in a job and a worker performs it later.
 */

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

export interface PreparedDeclutter {
  operation: 'declutter';
  inputs: [Buffer];
  formats: AcceptedFormat[];
  ids: [string];
  seed: number;
  disclosure: DisclosureProfile;
  originalTokens: [string];
  claimCode: string | null;
}

/**
 * A re-render of one of the caller's staged or decluttered images: its kept original drawn again with a new seed.
 * The result takes the old image's place in its claim; `rootImageId` (the first image of the line) counts the free
 * re-renders.
 */
export interface PreparedRerender {
  operation: 'rerender';
  inputs: [Buffer];
  formats: AcceptedFormat[];
  ids: [string];
  kind: 'staged' | 'decluttered';
  replacedImageId: string;
  rootImageId: string;
  style: Style | null;
  roomType: RoomType | null;
  seed: number;
  disclosure: DisclosureProfile;
  originalTokens: [string];
  /** The claim the old image is in; the re-render replaces it there (no open-claim check: nothing is added). */
  claimCode: string | null;
}

export interface PreparedEnhance {
  operation: 'enhance';
  inputs: [Buffer];
  formats: AcceptedFormat[];
  ids: [string];
  claimCode: string | null;
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

export type PreparedOperation = PreparedStage | PreparedEnhance | PreparedPlace | PreparedDeclutter | PreparedRerender;

/** Runs inside the transaction that stores the result, after its rows: a job records its outcome there. */
export type OnStored<R> = (trx: ImagingDeps['db'], result: R) => Promise<void>;

/**
 * What a prepared request costs; null when it is free. A stage costs images × variations × (1 + declutter), all
 * in one charge, so a balance that cannot cover every variation refuses the whole request. Declutter is staging
 * work on the ledger (its reasons are a closed list).
 */
export function chargeOf(caller: ApiCaller, prepared: PreparedOperation): Charge | null {
  const reference = prepared.ids[0];
  switch (prepared.operation) {
    case 'place_products':
      return null;
    case 'stage': {
      const credits = prepared.inputs.length * prepared.variations * creditsPerStagedImage(prepared);
      return { caller, credits, reason: 'stage', reference };
    }
    case 'declutter':
    case 'rerender':
      return { caller, credits: 1, reason: 'stage', reference };
    case 'enhance':
      return { caller, credits: 1, reason: 'enhance', reference };
  }
}

/** The disclosure profile of a request's outputs: the request's (or its older `label`), else the account's default. */
async function disclosureOf(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { disclosure?: DisclosureProfile; label?: Label },
): Promise<DisclosureProfile> {
  if (request.disclosure) return request.disclosure;
  if (request.label) return profileOfLabel(request.label);
  return caller.defaultDisclosure ?? (await getStagingSettings(deps.db, caller.accountId)).disclosure;
}

/** What the finishing step draws on the image with this id (its original's page is known before it is drawn). */
function drawingFor(deps: ImagingDeps, disclosure: DisclosureProfile, token: string | undefined) {
  return drawingOf(disclosure, originalPageUrl(deps.publicBaseUrl, token ?? null) ?? '');
}

/**
 * Refuses what the running engine cannot do (422 `unsupported_option`, extra `option`), before the images are even
 * read: a request that cannot succeed never downloads, inspects or charges anything.
 */
export function assertEngineSupports(
  engine: ImageEngine,
  request: { variations?: number; declutter?: boolean; label?: Label },
): void {
  const { capabilities } = engine;
  const refuse = (option: string, message: string) => {
    throw new AppError('unsupported_option', message, { option });
  };
  if (request.declutter && !capabilities.declutter)
    refuse('declutter', `The ${capabilities.engine} engine cannot declutter; see GET /api/v1/capabilities.`);
  if ((request.variations ?? 1) > capabilities.maxVariations)
    refuse(
      'variations',
      `The ${capabilities.engine} engine draws at most ${capabilities.maxVariations} variations an image.`,
    );
  if (request.label === 'virtually_staged' && !capabilities.label)
    refuse('label', `The ${capabilities.engine} engine cannot draw the disclosure mark.`);
}

/**
 * Takes the prepared request's credits as a hold, in one transaction with the claim check and `onHeld` (a job
 * inserts itself there). `leaseMs` is the hold's first lease: CHARGE_HOLD_TIMEOUT unless a job keeps it longer.
 */
export async function chargePrepared(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedOperation,
  options: { leaseMs?: number; onHeld?: (trx: ImagingDeps['db'], held: HeldCharge | null) => Promise<void> } = {},
): Promise<HeldCharge | null> {
  const charge = chargeOf(caller, prepared);
  const hold = { ...holdOptions(deps), ...(options.leaseMs && { timeoutMs: options.leaseMs }), onHeld: options.onHeld };
  if (prepared.operation === 'rerender' && charge) {
    // A free re-render is taken with a conditional update, so two at once never both get the last one; only when
    // none is left is the credit charged.
    const free = await inTransaction(deps.db, async (trx) => {
      const took = await takeFreeRerender(trx, {
        rootImageId: prepared.rootImageId,
        free: deps.freeRerenders,
        now: deps.clock.now(),
      });
      if (took) await options.onHeld?.(trx, null);
      return took;
    });
    return free ? null : chargeCredits(deps.db, charge, hold);
  }
  const check = claimCheck(deps, caller, prepared.claimCode);
  if (!charge) {
    if (check || options.onHeld) {
      await inTransaction(deps.db, async (trx) => {
        await check?.(trx);
        await options.onHeld?.(trx, null);
      });
    }
    return null;
  }
  return chargeCredits(deps.db, charge, hold, check);
}

/** Inspects every input (a bad one refuses the request before any charge); their formats travel with the request. */
async function inspectAll(engine: ImageEngine, inputs: Buffer[]): Promise<AcceptedFormat[]> {
  const formats: AcceptedFormat[] = [];
  for (const input of inputs) formats.push((await engine.inspect(input)).format);
  return formats;
}

/**
 * Refuses (422 `not_a_room`) an input that is not a photo of a room, before any charge: staging, decluttering and
 * placing products draw into a room, and on anything else they would charge for clip-art pasted on a picture.
 * Enhancing does not ask it, since sharpening and upscaling suit any photo.
 */
async function assertRooms(inputs: Buffer[]): Promise<void> {
  for (const [index, input] of inputs.entries()) await assertRoomPhoto(input, inputs.length > 1 ? index : undefined);
}

/** Damaged pixel data only shows when decoding; that is the client's bad image (422), not our fault. */
function asClientError(error: unknown): unknown {
  if (!(error instanceof AppError) && isDecodeFailure(error))
    return new AppError('invalid_image', 'The image could not be decoded; it may be damaged.');
  return error;
}

/**
 * Runs `work` while keeping the charge's hold alive; if it fails: deletes the files it wrote, refunds the hold (if
 * any), counts the failure for the fleet report when the engine or the server failed it, rethrows. A refund that
 * fails here is not lost: the hold stays, its lease runs out and a sweeper refunds it.
 */
async function undoOnFailure<T>(
  deps: ImagingDeps,
  held: HeldCharge | null,
  work: (written: string[]) => Promise<T>,
): Promise<T> {
  const written: string[] = [];
  const lease = held
    ? keepHoldAlive(deps.db, held.holdId, { clock: deps.clock, timeoutMs: deps.chargeHoldTimeoutMs })
    : null;
  try {
    return await work(written);
  } catch (error) {
    await lease?.stop();
    await Promise.allSettled(written.map((name) => deps.storage.delete(name)));
    const answer = asClientError(error);
    // An error that says so (a job taken over by another worker) leaves the hold, and its outcome, to its owner now.
    const handedOver = (error as { keepsHold?: boolean } | null)?.keepsHold === true;
    if (held && !handedOver) {
      try {
        await releaseHold(deps.db, held.holdId, { now: deps.clock.now() });
      } catch (refundError) {
        log.error(
          { err: refundError, holdId: held.holdId },
          'refund failed; the hold sweeper refunds it within CHARGE_HOLD_TIMEOUT',
        );
      }
    }
    if (!handedOver)
      await countImageFailure(deps.db, {
        engine: deps.engine.capabilities.engine,
        error: answer,
        now: deps.clock.now(),
      });
    throw answer;
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

async function canonicalClaimCode(
  deps: ImagingDeps,
  caller: ApiCaller,
  typed: string | undefined,
): Promise<string | null> {
  if (typed === undefined) return null;
  return assertClaimOpenForIssuer(deps.db, { typed, accountId: caller.accountId, now: deps.clock.now() });
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
async function performStage(
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

export async function prepareEnhance(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { sources: ImageSources; claimCode?: string },
): Promise<PreparedEnhance> {
  const input = only(await readImageSources(request.sources, deps.network, { allowMany: false }));
  const formats = await inspectAll(deps.engine, [input]);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  return { operation: 'enhance', inputs: [input], formats, ids: [newId('image')], claimCode };
}

/** POST /api/v1/enhance: 1 credit; the long edge becomes 3840 px. Joins `claimCode`'s claim when given. */
async function performEnhance(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedEnhance,
  held: HeldCharge,
  onStored?: OnStored<EnhanceResult>,
): Promise<EnhanceResult> {
  const { claimCode } = prepared;
  return undoOnFailure(deps, held, async (written) => {
    const stored = await store(deps, written, prepared.ids[0], await deps.engine.enhance(prepared.inputs[0]));
    return commitOneImage(deps, caller, held, { claimCode, kind: 'enhanced', stored }, onStored);
  });
}

/**
 * Makes one stored output final: the hold, the claim it joins, the image row and what the caller records with it,
 * in one transaction (enhance and declutter).
 */
function commitOneImage(
  deps: ImagingDeps,
  caller: ApiCaller,
  held: HeldCharge,
  output: {
    claimCode: string | null;
    kind: 'enhanced' | 'decluttered';
    stored: StoredOutput;
    disclosure?: DisclosureProfile;
  },
  onStored?: OnStored<EnhanceResult>,
): Promise<EnhanceResult> {
  const { claimCode, kind, stored, disclosure } = output;
  return inTransaction(deps.db, async (trx) => {
    await finalizeHold(trx, held.holdId);
    const now = deps.clock.now();
    if (claimCode) await addImagesToClaim(trx, { code: claimCode, accountId: caller.accountId, count: 1, now });
    const image = only(
      await insertImages(trx, {
        engine: deps.engine.capabilities.engine,
        accountId: caller.accountId,
        keyId: caller.keyId,
        claimCode,
        kind,
        style: null,
        roomType: null,
        ...(disclosure && { disclosure }),
        outputs: [stored],
        now,
      }),
    );
    const result = { image, creditsRemaining: held.balanceAfter };
    await onStored?.(trx, result);
    return result;
  });
}

/** Reads and checks a declutter request; an engine that cannot declutter refuses it before anything is read. */
export async function prepareDeclutter(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { sources: ImageSources; disclosure?: DisclosureProfile; label?: Label; claimCode?: string },
): Promise<PreparedDeclutter> {
  const disclosure = await disclosureOf(deps, caller, request);
  assertEngineSupports(deps.engine, { declutter: true, label: labelOf(disclosure) });
  const input = only(await readImageSources(request.sources, deps.network, { allowMany: false }));
  const formats = await inspectAll(deps.engine, [input]);
  await assertRooms([input]);
  const claimCode = await canonicalClaimCode(deps, caller, request.claimCode);
  return {
    operation: 'declutter',
    inputs: [input],
    formats,
    ids: [newId('image')],
    seed: requestSeed(undefined, input),
    disclosure,
    originalTokens: [newOriginalToken()],
    claimCode,
  };
}

/**
 * POST /api/v1/declutter: 1 credit; the room emptied of its movable furniture, at the input's size. Its original is
 * kept for its public page and re-renders, but not recognised: a decluttered photo sent to stage is staged as it is,
 * not from the cluttered original.
 */
async function performDeclutter(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedDeclutter,
  held: HeldCharge,
  onStored?: OnStored<DeclutterResult>,
): Promise<DeclutterResult> {
  const { claimCode } = prepared;
  return undoOnFailure(deps, held, async (written) => {
    const [input] = prepared.inputs;
    const [id] = prepared.ids;
    const [originalToken] = prepared.originalTokens;
    const drawing = drawingFor(deps, prepared.disclosure, originalToken);
    const { output, seed, fidelity, changes } = await renderChecked(
      deps,
      input,
      { seed: prepared.seed, drawing },
      (seed) => deps.engine.declutter(input, { seed, ...drawing }),
    );
    const stored = {
      ...(await store(deps, written, id, output)),
      origin: await keepOrigin(deps, written, id, input, output, { recognise: false }),
      originalToken,
      seed,
      fidelity,
      changes,
    };
    return commitOneImage(
      deps,
      caller,
      held,
      { claimCode, kind: 'decluttered', stored, disclosure: prepared.disclosure },
      onStored,
    );
  });
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
async function performPlace(
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

/** `original_url` and `disclosure_caption` of an image, as responses and webhooks carry them. */
function disclosureFields(deps: ImagingDeps, image: Image) {
  const originalUrl = originalPageUrl(deps.publicBaseUrl, image.original_token);
  return { original_url: originalUrl, disclosure_caption: disclosureCaption(image.disclosure, originalUrl) };
}

/**
 * Reads and checks a re-render: an image of this account, staged or decluttered, whose original was kept. Its
 * disclosure stays unless the request names one; the seed is new.
 */
export async function prepareRerender(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { imageId: string; disclosure?: DisclosureProfile; label?: Label },
): Promise<PreparedRerender> {
  const image = await findOwnImage(deps.db, caller.accountId, request.imageId);
  if (!image) throw new AppError('not_found', `No image ${request.imageId} among the images this API user created.`);
  if (image.kind !== 'staged' && image.kind !== 'decluttered')
    throw new AppError(
      'conflict',
      `Only staged or decluttered images can be re-rendered; ${image.id} is ${image.kind}.`,
    );
  const original = image.original_storage_name ? await deps.storage.get(image.original_storage_name) : null;
  if (!original)
    throw new AppError('conflict', `The original of ${image.id} was not kept; stage the photo again instead.`);
  const disclosure =
    request.disclosure || request.label || !image.disclosure
      ? await disclosureOf(deps, caller, request)
      : image.disclosure;
  assertEngineSupports(deps.engine, { declutter: image.kind === 'decluttered', label: labelOf(disclosure) });
  const formats = await inspectAll(deps.engine, [original.data]);
  let seed = freshSeed();
  while (seed === image.seed) seed = freshSeed();
  return {
    operation: 'rerender',
    inputs: [original.data],
    formats,
    ids: [newId('image')],
    kind: image.kind,
    replacedImageId: image.id,
    rootImageId: image.rerender_of ?? image.id,
    style: isStyle(image.style) ? image.style : null,
    roomType: isRoomType(image.room_type) ? image.room_type : null,
    seed,
    disclosure,
    originalTokens: [newOriginalToken()],
    claimCode: null,
  };
}

/**
 * POST /api/v1/images/{id}/rerender: the kept original drawn again with the new seed, taking the old image's place
 * in its claim. Free (`held` null) or 1 credit; a free one that fails gives its turn back.
 */
async function performRerender(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedRerender,
  held: HeldCharge | null,
  onStored?: OnStored<RerenderResult>,
): Promise<RerenderResult> {
  try {
    return await undoOnFailure(deps, held, async (written) => {
      const [input] = prepared.inputs;
      const [id] = prepared.ids;
      const [originalToken] = prepared.originalTokens;
      const drawing = drawingFor(deps, prepared.disclosure, originalToken);
      const { output, seed, fidelity, changes } = await renderChecked(
        deps,
        input,
        { seed: prepared.seed, drawing },
        (seed): Promise<EngineImage & { scene?: Scene }> =>
          prepared.kind === 'decluttered'
            ? deps.engine.declutter(input, { seed, ...drawing })
            : deps.engine.stage(input, {
                style: prepared.style ?? DEFAULT_STYLE,
                roomType: prepared.roomType ?? DEFAULT_ROOM_TYPE,
                seed,
                ...drawing,
              }),
      );
      const stored = {
        ...(await store(deps, written, id, output)),
        origin: await keepOrigin(deps, written, id, input, output, { recognise: prepared.kind === 'staged' }),
        originalToken,
        seed,
        fidelity,
        changes,
      };
      return inTransaction(deps.db, async (trx) => {
        if (held) await finalizeHold(trx, held.holdId);
        const now = deps.clock.now();
        const row = only(
          await insertImages(trx, {
            accountId: caller.accountId,
            keyId: caller.keyId,
            claimCode: null,
            kind: prepared.kind,
            style: prepared.style,
            roomType: prepared.roomType,
            disclosure: prepared.disclosure,
            rerenderOf: prepared.rootImageId,
            outputs: [stored],
            now,
          }),
        );
        const claimCode = await replaceInClaim(trx, { rootImageId: prepared.rootImageId, imageId: row.id });
        const image = { ...row, claim_code: claimCode };
        const claim = claimCode
          ? ((await trx.selectFrom('claims').selectAll().where('code', '=', claimCode).executeTakeFirst()) ?? null)
          : null;
        const creditsRemaining = held ? held.balanceAfter : (await getBalance(trx, caller.accountId)).credits;
        const creditsUsed = held ? 1 : 0;
        await emitEvent(trx, {
          accountId: caller.accountId,
          keyId: caller.keyId,
          event: 'staging.complete',
          data: {
            image_url: deps.storage.url(image.storage_name),
            claim_code: claimCode,
            style: prepared.style,
            room_type: prepared.roomType,
            credits_used: creditsUsed,
            credits_remaining: creditsRemaining,
            image_id: image.id,
            variation: 0,
            seed,
            fidelity,
            changes,
            rerender_of: prepared.replacedImageId,
            ...disclosureFields(deps, image),
          },
          now,
        });
        const result: RerenderResult = { image, claim, creditsUsed, creditsRemaining };
        await onStored?.(trx, result);
        return result;
      });
    });
  } catch (error) {
    if (!held) {
      await returnFreeRerender(deps.db, prepared.rootImageId).catch((returnError: unknown) =>
        log.error({ err: returnError, imageId: prepared.rootImageId }, 'a free re-render could not be given back'),
      );
    }
    throw error;
  }
}

/** The one element of a list that holds exactly one (an enhance's input, the row of its one image). */
function only<T>(items: readonly T[]): T {
  const [item] = items;
  if (items.length !== 1 || item === undefined) throw new Error(`Expected exactly one, got ${items.length}`);
  return item;
}

/** The response body of a prepared request: the same for a synchronous answer and a succeeded job's `result`. */
export type ImageResponse<P extends PreparedOperation> = P extends PreparedStage
  ? ReturnType<typeof stageResponse>
  : P extends PreparedEnhance
    ? ReturnType<typeof enhanceResponse>
    : P extends PreparedDeclutter
      ? ReturnType<typeof declutterResponse>
      : P extends PreparedRerender
        ? ReturnType<typeof rerenderResponse>
        : ReturnType<typeof placeResponse>;

/**
 * Performs a prepared request whose credits are already held (place-products holds none) and answers with its
 * response body; `onStored` sees that body inside the transaction that stores the result.
 */
export async function performPrepared<P extends PreparedOperation>(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: P,
  held: HeldCharge | null,
  onStored?: OnStored<ImageResponse<P>>,
): Promise<ImageResponse<P>> {
  const request: PreparedOperation = prepared;
  const record = <R>(toBody: (result: R) => unknown): OnStored<R> | undefined =>
    onStored && ((trx, result) => onStored(trx, toBody(result) as ImageResponse<P>));
  const charged = () => {
    if (!held) throw new Error(`A ${request.operation} holds its credits before it runs`);
    return held;
  };
  switch (request.operation) {
    case 'stage': {
      const toBody = (result: StageResult) => stageResponse(deps, request, result);
      return toBody(await performStage(deps, caller, request, charged(), record(toBody))) as ImageResponse<P>;
    }
    case 'enhance': {
      const toBody = (result: EnhanceResult) => enhanceResponse(deps, result);
      return toBody(await performEnhance(deps, caller, request, charged(), record(toBody))) as ImageResponse<P>;
    }
    case 'declutter': {
      const toBody = (result: DeclutterResult) => declutterResponse(deps, result);
      return toBody(await performDeclutter(deps, caller, request, charged(), record(toBody))) as ImageResponse<P>;
    }
    case 'rerender': {
      const toBody = (result: RerenderResult) => rerenderResponse(deps, request, result);
      return toBody(await performRerender(deps, caller, request, held, record(toBody))) as ImageResponse<P>;
    }
    case 'place_products': {
      const toBody = (result: PlaceResult) => placeResponse(deps, result);
      return toBody(await performPlace(deps, caller, request, record(toBody))) as ImageResponse<P>;
    }
  }
}

/** The one entry for a request answered now: hold its credits (claim checked in the same transaction), perform it. */
export async function runImageRequest<P extends PreparedOperation>(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: P,
): Promise<ImageResponse<P>> {
  return performPrepared(deps, caller, prepared, await chargePrepared(deps, caller, prepared));
}

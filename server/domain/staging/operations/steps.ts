import type { DisclosureProfile, Image } from '../../../../db/schema.js';
import { inTransaction } from '../../../../db/transaction.js';
import { AppError } from '../../../errors.js';
import type { AcceptedFormat, EngineImage, ImageEngine, Label, Scene } from '../../../imaging/engine.js';
import { isDecodeFailure } from '../../../imaging/input-rules.js';
import { assertRoomPhoto } from '../../../imaging/room-check.js';
import { log } from '../../../observability/logger.js';
import { newImageName } from '../../../storage/storage.js';
import { addImagesToClaim, assertClaimOpenForIssuer } from '../../claims/claims.js';
import { keepHoldAlive, releaseHold, finalizeHold } from '../../credits/holds.js';
import { disclosureCaption, drawingOf, originalPageUrl, profileOfLabel } from '../../disclosure/disclosure.js';
import { getStagingSettings } from '../../settings/staging.js';
import type { HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { countImageFailure } from '../failures.js';
import { type CheckedOutput, renderChecked } from '../fidelity-check.js';
import { insertImages, type StoredOutput } from '../images.js';
import { keepOrigin } from '../originals.js';

/*
 * The steps every image operation is made of (one operation per file beside this one; ./pipeline.ts charges and
 * runs them). The operations run in one order: read and inspect every input (bad input never charges), check the
 * claim and take the credits as a hold in one transaction, process, store the files, then make the hold final and
 * record the rows and events in one transaction. Anything failing after the charge deletes the files written and
 * refunds the hold in the same request; a request that dies is refunded by the hold sweeper.
 */

/*
 * Each operation runs in two halves: `prepare…` reads, inspects and checks the request (a bad one fails here,
 * charging nothing), then the charge is taken, then `perform…` does the work. A synchronous request runs both
 * halves at once; an asynchronous one (../../jobs) keeps the prepared request in a job and a worker performs it later.
 */

/** Runs inside the transaction that stores the result, after its rows: a job records its outcome there. */
export type OnStored<R> = (trx: ImagingDeps['db'], result: R) => Promise<void>;

/** The result of an operation that makes one image (enhance, declutter). */
export interface OneImageResult {
  image: Image;
  creditsRemaining: number;
}

/** The disclosure profile of a request's outputs: the request's (or its older `label`), else the account's default. */
export async function disclosureOf(
  deps: ImagingDeps,
  caller: ApiCaller,
  request: { disclosure?: DisclosureProfile; label?: Label },
): Promise<DisclosureProfile> {
  if (request.disclosure) return request.disclosure;
  if (request.label) return profileOfLabel(request.label);
  return caller.defaultDisclosure ?? (await getStagingSettings(deps.db, caller.accountId)).disclosure;
}

/** What the finishing step draws on the image with this id (its original's page is known before it is drawn). */
export function drawingFor(deps: ImagingDeps, disclosure: DisclosureProfile, token: string | undefined) {
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

/** Inspects every input (a bad one refuses the request before any charge); their formats travel with the request. */
export async function inspectAll(engine: ImageEngine, inputs: Buffer[]): Promise<AcceptedFormat[]> {
  const formats: AcceptedFormat[] = [];
  for (const input of inputs) formats.push((await engine.inspect(input)).format);
  return formats;
}

/**
 * Refuses (422 `not_a_room`) an input that is not a photo of a room, before any charge: staging, decluttering and
 * placing products draw into a room, and on anything else they would charge for clip-art pasted on a picture.
 * Enhancing does not ask it, since sharpening and upscaling suit any photo.
 */
export async function assertRooms(inputs: Buffer[]): Promise<void> {
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
export async function undoOnFailure<T>(
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

export async function store(
  deps: ImagingDeps,
  written: string[],
  id: string,
  output: EngineImage,
): Promise<StoredOutput> {
  const storageName = newImageName(id, output.extension);
  written.push(storageName);
  await deps.storage.put(storageName, output.data, output.contentType);
  return { id, storageName, output };
}

/**
 * A one-image request's picture (declutter, re-render): its input drawn by `render` with the disclosure drawn in,
 * checked for fidelity (a second drawing when the first changed the building), stored, and its origin kept.
 */
export async function drawOneChecked(
  deps: ImagingDeps,
  written: string[],
  prepared: {
    inputs: [Buffer];
    ids: [string];
    originalTokens: [string];
    disclosure: DisclosureProfile;
    seed: number;
  },
  render: (
    input: Buffer,
    options: { seed: number } & ReturnType<typeof drawingFor>,
  ) => Promise<EngineImage & { scene?: Scene }>,
  origin: { recognise: boolean },
): Promise<StoredOutput & Pick<CheckedOutput<EngineImage>, 'seed' | 'fidelity' | 'changes'>> {
  const [input] = prepared.inputs;
  const [id] = prepared.ids;
  const [originalToken] = prepared.originalTokens;
  const drawing = drawingFor(deps, prepared.disclosure, originalToken);
  const { output, seed, fidelity, changes } = await renderChecked(
    deps,
    input,
    { seed: prepared.seed, drawing },
    (seed) => render(input, { seed, ...drawing }),
  );
  return {
    ...(await store(deps, written, id, output)),
    origin: await keepOrigin(deps, written, id, input, output, origin),
    originalToken,
    seed,
    fidelity,
    changes,
  };
}

export function holdOptions(deps: ImagingDeps) {
  return { now: () => deps.clock.now(), timeoutMs: deps.chargeHoldTimeoutMs, topUp: deps.autoTopUp };
}

/** Checks the claim named by `claim_code` (if any) against this account; a closed claim refuses before any charge. */
export function claimCheck(deps: ImagingDeps, caller: ApiCaller, claimCode: string | null) {
  if (!claimCode) return undefined;
  return async (trx: ImagingDeps['db']) => {
    await assertClaimOpenForIssuer(trx, { typed: claimCode, accountId: caller.accountId, now: deps.clock.now() });
  };
}

export async function canonicalClaimCode(
  deps: ImagingDeps,
  caller: ApiCaller,
  typed: string | undefined,
): Promise<string | null> {
  if (typed === undefined) return null;
  return assertClaimOpenForIssuer(deps.db, { typed, accountId: caller.accountId, now: deps.clock.now() });
}

/**
 * Makes one stored output final: the hold, the claim it joins, the image row and what the caller records with it,
 * in one transaction (enhance and declutter).
 */
export function commitOneImage(
  deps: ImagingDeps,
  caller: ApiCaller,
  held: HeldCharge,
  output: {
    claimCode: string | null;
    kind: 'enhanced' | 'decluttered';
    stored: StoredOutput;
    disclosure?: DisclosureProfile;
  },
  onStored?: OnStored<OneImageResult>,
): Promise<OneImageResult> {
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

/** `original_url` and `disclosure_caption` of an image, as responses and webhooks carry them. */
export function disclosureFields(deps: ImagingDeps, image: Image) {
  const originalUrl = originalPageUrl(deps.publicBaseUrl, image.original_token);
  return { original_url: originalUrl, disclosure_caption: disclosureCaption(image.disclosure, originalUrl) };
}

/** The one element of a list that holds exactly one (an enhance's input, the row of its one image). */
export function only<T>(items: readonly T[]): T {
  const [item] = items;
  if (items.length !== 1 || item === undefined) throw new Error(`Expected exactly one, got ${items.length}`);
  return item;
}

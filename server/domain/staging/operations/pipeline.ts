import { inTransaction } from '../../../../db/transaction.js';
import { type Charge, chargeCredits, type HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { takeFreeRerender } from '../rerenders.js';
import { declutterResponse, enhanceResponse, placeResponse, rerenderResponse, stageResponse } from '../responses.js';
import { creditsPerStagedImage } from '../variations.js';
import type { DeclutterResult, PreparedDeclutter } from './declutter.js';
import type { EnhanceResult, PreparedEnhance } from './enhance.js';
import type { PlaceResult, PreparedPlace } from './place.js';
import type { PreparedRerender, RerenderResult } from './rerender.js';
import type { PreparedStage, StageResult } from './stage.js';
import { performDeclutter } from './declutter.js';
import { performEnhance } from './enhance.js';
import { performPlace } from './place.js';
import { performRerender } from './rerender.js';
import { performStage } from './stage.js';
import { claimCheck, holdOptions, type OnStored } from './steps.js';

/*
 * The one way an image request is charged and run, whichever operation it is: `chargePrepared` holds its credits,
 * `performPrepared` runs the operation's `perform…` (./stage.ts, ./enhance.ts, …) and answers with its response body
 * (../responses.ts). A synchronous request does both at once (`runImageRequest`); a job (../../jobs) holds when it is
 * queued and performs later.
 */

export type PreparedOperation = PreparedStage | PreparedEnhance | PreparedPlace | PreparedDeclutter | PreparedRerender;

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

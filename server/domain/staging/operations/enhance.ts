import { newId } from '../../../ids.js';
import type { AcceptedFormat } from '../../../imaging/engine.js';
import type { HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { type ImageSources, readImageSources } from '../image-input.js';
import {
  canonicalClaimCode,
  commitOneImage,
  inspectAll,
  type OneImageResult,
  type OnStored,
  only,
  store,
  undoOnFailure,
} from './steps.js';

export type EnhanceResult = OneImageResult;

export interface PreparedEnhance {
  operation: 'enhance';
  inputs: [Buffer];
  formats: AcceptedFormat[];
  ids: [string];
  claimCode: string | null;
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
export async function performEnhance(
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

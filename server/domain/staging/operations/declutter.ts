import type { DisclosureProfile } from '../../../../db/schema.js';
import { newId } from '../../../ids.js';
import type { AcceptedFormat, Label } from '../../../imaging/engine.js';
import { labelOf, newOriginalToken } from '../../disclosure/disclosure.js';
import type { HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { type ImageSources, readImageSources } from '../image-input.js';
import { requestSeed } from '../variations.js';
import {
  assertEngineSupports,
  assertRooms,
  canonicalClaimCode,
  commitOneImage,
  disclosureOf,
  drawOneChecked,
  inspectAll,
  type OneImageResult,
  type OnStored,
  only,
  undoOnFailure,
} from './steps.js';

export type DeclutterResult = OneImageResult;

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
export async function performDeclutter(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedDeclutter,
  held: HeldCharge,
  onStored?: OnStored<DeclutterResult>,
): Promise<DeclutterResult> {
  const { claimCode } = prepared;
  return undoOnFailure(deps, held, async (written) => {
    const stored = await drawOneChecked(
      deps,
      written,
      prepared,
      (input, options) => deps.engine.declutter(input, options),
      { recognise: false },
    );
    return commitOneImage(
      deps,
      caller,
      held,
      { claimCode, kind: 'decluttered', stored, disclosure: prepared.disclosure },
      onStored,
    );
  });
}

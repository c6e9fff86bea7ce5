import type { Claim, DisclosureProfile, Image } from '../../../../db/schema.js';
import { inTransaction } from '../../../../db/transaction.js';
import { AppError } from '../../../errors.js';
import { newId } from '../../../ids.js';
import {
  DEFAULT_ROOM_TYPE,
  DEFAULT_STYLE,
  isRoomType,
  isStyle,
  type RoomType,
  type Style,
} from '../../../imaging/catalog-data.js';
import type { AcceptedFormat, EngineImage, Label, Scene } from '../../../imaging/engine.js';
import { log } from '../../../observability/logger.js';
import { finalizeHold } from '../../credits/holds.js';
import { getBalance } from '../../credits/ledger.js';
import { labelOf, newOriginalToken } from '../../disclosure/disclosure.js';
import { emitEvent } from '../../events/outbox.js';
import type { HeldCharge } from '../charge.js';
import type { ApiCaller, ImagingDeps } from '../deps.js';
import { findOwnImage, insertImages } from '../images.js';
import { replaceInClaim, returnFreeRerender } from '../rerenders.js';
import { freshSeed } from '../variations.js';
import {
  assertEngineSupports,
  disclosureFields,
  disclosureOf,
  drawOneChecked,
  inspectAll,
  type OnStored,
  only,
  undoOnFailure,
} from './steps.js';

export interface RerenderResult {
  image: Image;
  /** The claim it took its place in (null: the image's line is in no claim). */
  claim: Claim | null;
  creditsUsed: 0 | 1;
  creditsRemaining: number;
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
export async function performRerender(
  deps: ImagingDeps,
  caller: ApiCaller,
  prepared: PreparedRerender,
  held: HeldCharge | null,
  onStored?: OnStored<RerenderResult>,
): Promise<RerenderResult> {
  try {
    return await undoOnFailure(deps, held, async (written) => {
      const stored = await drawOneChecked(
        deps,
        written,
        prepared,
        (input, options): Promise<EngineImage & { scene?: Scene }> =>
          prepared.kind === 'decluttered'
            ? deps.engine.declutter(input, options)
            : deps.engine.stage(input, {
                style: prepared.style ?? DEFAULT_STYLE,
                roomType: prepared.roomType ?? DEFAULT_ROOM_TYPE,
                ...options,
              }),
        { recognise: prepared.kind === 'staged' },
      );
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
            seed: stored.seed,
            fidelity: stored.fidelity,
            changes: stored.changes,
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

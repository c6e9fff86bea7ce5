import { answerWithoutProcedure } from '../adapters/library-internals.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  completeIdempotentRequest,
  type IdempotencyClaim,
  parseIdempotencyKey,
  requestFingerprint,
} from '../domain/idempotency/requests.js';
import { takeImageSlot } from '../limits/image-admission.js';
import { log } from '../observability/logger.js';
import { apiKeyProcedure } from './api-key.js';

function isAcceptedJob(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'job_id' in body && 'status_url' in body;
}

/**
 * The image endpoints (stage, enhance, place-products, declutter, re-render): an API key, then Idempotency-Key
 * replay, then one of the key's slots for image operations in flight.
 */
export const imageProcedure = apiKeyProcedure
  .meta({
    builderErrors: [
      // Idempotency-Key reuse or a retry while the first runs; the key's slots; a full server or a lost hold.
      'conflict',
      'service_unavailable',
      // The image: too large, a format not accepted, not decodable or out of the size range.
      'payload_too_large',
      'unsupported_media_type',
      'invalid_image',
      // `claim_code`: not this account's, redeemed, expired.
      'not_found',
      'claim_already_redeemed',
      'claim_expired',
    ],
  })
  .use(async ({ ctx, path, getRawInput, next }) => {
    const idempotencyKey = parseIdempotencyKey(ctx.headers['idempotency-key']);
    if (!idempotencyKey) return next({ ctx: { idempotency: null } });
    const { db, clock } = ctx.services;
    const scope = { keyId: ctx.apiKey.id, idempotencyKey };
    const fingerprint = requestFingerprint(path, await getRawInput());
    const startedAt = clock.now();
    const start = await beginIdempotentRequest(db, { ...scope, fingerprint, now: startedAt });
    if (start.kind === 'replay') {
      ctx.response.setHeader('Idempotent-Replayed', 'true');
      // An asynchronous request's first answer was the 202 with its job; so is the replay.
      if (isAcceptedJob(start.body)) {
        ctx.response.setStatus(202);
        ctx.response.setHeader('Preference-Applied', 'respond-async');
      }
      // A replayed response skips the procedure.
      return answerWithoutProcedure<Awaited<ReturnType<typeof next>>>(start.body);
    }
    const idempotency: IdempotencyClaim = { key: idempotencyKey, startedAt };
    const result = await next({ ctx: { idempotency } });
    // The work is done (and maybe charged): bookkeeping failures are logged, never turned into a failed response.
    // A record left in progress makes retries answer 409 for 24 h, which never charges twice.
    const settle = result.ok
      ? completeIdempotentRequest(db, scope, result.data)
      : abandonIdempotentRequest(db, { ...scope, startedAt });
    await settle.catch((error: unknown) =>
      log.error({ err: error, idempotencyKey }, 'idempotency key could not be settled'),
    );
    return result;
  })
  .use(async ({ ctx, path, next }) => {
    const { metrics } = ctx.services;
    const release = await takeImageSlot(ctx.services.imageAdmission, ctx.apiKey.id);
    try {
      const result = await next();
      metrics.imageOperations.inc({ operation: path, outcome: result.ok ? 'ok' : 'failed' });
      return result;
    } finally {
      await release();
    }
  });

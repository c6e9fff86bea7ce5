import { bearerToken } from '../auth/bearer.js';
import { apiKeyHashOf, authenticateApiKey, lastKnownKeyId } from '../domain/keys/api-keys.js';
import { apiKeyRefusal } from '../domain/keys/credential.js';
import { AppError } from '../errors.js';
import { publicProcedure } from './setup.js';

/**
 * API key: `Authorization: Bearer sk_live_…|sk_test_…`. Cookies and identity tokens are no credential here.
 * Every authenticated call counts against the key's requests-per-minute budget, reported in X-RateLimit-* headers.
 */
export const apiKeyProcedure = publicProcedure.meta({ auth: 'apiKey' }).use(async ({ ctx, meta, next }) => {
  const bearer = bearerToken(ctx.headers);
  const keyHash = bearer ? apiKeyHashOf(bearer) : null;
  if (!keyHash) throw apiKeyRefusal(null, 0, meta?.scope);
  const { db, clock, requestRateLimiter } = ctx.services;
  const now = clock.now();
  // A key seen before is counted against its budget while it is checked: two round trips at once instead of one
  // after the other. If the check then fails, that hit lands on a key that no longer works, which changes nothing.
  const knownId = lastKnownKeyId(db, keyHash);
  const verified = ctx.verifiedApiKey?.hash === keyHash ? ctx.verifiedApiKey.key : undefined;
  const [found, early] = await Promise.all([
    verified ?? authenticateApiKey(db, keyHash, now),
    knownId === undefined ? null : requestRateLimiter.consume(knownId, now),
  ]);
  if (found) ctx.request.accountId = found.accountId;
  // The one credential check (existence, expiry, suspension, the scope each API-key procedure names in meta), the
  // same the image upload pre-check ran before reading the body.
  const refusal = apiKeyRefusal(found, now, meta?.scope);
  if (refusal || !found) throw refusal;
  const apiKey = found;
  const rate = early && knownId === apiKey.id ? early : await requestRateLimiter.consume(apiKey.id, now);
  ctx.response.setHeader('X-RateLimit-Limit', String(rate.limit));
  ctx.response.setHeader('X-RateLimit-Remaining', String(rate.remaining));
  ctx.response.setHeader('X-RateLimit-Reset', String(rate.resetSeconds));
  if (!rate.allowed) {
    throw new AppError(
      'rate_limited',
      `This API key is limited to ${rate.limit} requests a minute. Retry in ${rate.resetSeconds} s.`,
      {},
      { 'Retry-After': String(rate.resetSeconds) },
    );
  }
  return next({ ctx: { apiKey } });
});

import { createHash } from 'node:crypto';
import type { Config } from '../env.js';
import { AppError } from '../errors.js';
import { type Context, middleware } from './setup.js';

/** One hit on a named per-minute budget shared by every process; over it, 429 with Retry-After and `tooMany`'s words. */
export async function spendAttempt(
  ctx: Context,
  bucket: string,
  perMinute: number,
  tooMany: (limit: number, retrySeconds: number) => string,
) {
  const { requestRateLimiter, clock } = ctx.services;
  const rate = await requestRateLimiter.consumeBucket(bucket, perMinute, clock.now());
  if (!rate.allowed)
    throw new AppError(
      'rate_limited',
      tooMany(rate.limit, rate.resetSeconds),
      {},
      { 'Retry-After': String(rate.resetSeconds) },
    );
}

/**
 * At most `perMinute(config)` calls a minute from one client IP to the procedures it guards, shared by every process
 * (the budget lives in the database). For endpoints that must not be probed in bulk, like claim codes.
 */
export function limitPerClientIp(purpose: string, perMinute: (config: Config) => number) {
  return middleware(async ({ ctx, next }) => {
    await spendAttempt(
      ctx,
      `${purpose}:${ctx.clientIp}`,
      perMinute(ctx.services.config),
      (limit, retry) => `Too many attempts from this address: at most ${limit} a minute. Retry in ${retry} s.`,
    );
    return next();
  });
}

/**
 * At most `perIp` attempts a minute from one address and `perEmail` for one e-mail address (the input's `email`),
 * so guessing one account's password from many addresses meets the second budget. The e-mail is hashed into the
 * bucket name: the limits table holds no addresses.
 */
function limitPerIpAndEmail(purpose: string, limits: (config: Config) => { perIp: number; perEmail: number }) {
  return middleware(async ({ ctx, getRawInput, next }) => {
    const { perIp, perEmail } = limits(ctx.services.config);
    await spendAttempt(
      ctx,
      `${purpose}-ip:${ctx.clientIp}`,
      perIp,
      (limit, retry) =>
        `Too many attempts from your network (at most ${limit} a minute). Please wait ${retry} s and try again.`,
    );
    const input = await getRawInput();
    const email =
      input && typeof input === 'object' && 'email' in input && typeof input.email === 'string'
        ? input.email.trim().toLowerCase()
        : '';
    if (email) {
      const digest = createHash('sha256').update(email).digest('hex').slice(0, 40);
      await spendAttempt(
        ctx,
        `${purpose}-email:${digest}`,
        perEmail,
        (limit, retry) =>
          `Too many attempts for this e-mail address (at most ${limit} a minute). Please wait ${retry} s and try again.`,
      );
    }
    return next();
  });
}

/** Sign-in and sign-up: SIGN_IN_LIMIT_PER_IP and SIGN_IN_LIMIT_PER_EMAIL attempts a minute. */
export const limitSignInAttempts = limitPerIpAndEmail('sign-in', (config) => config.signInLimit);

/** Password-reset requests: the sign-in budget per address, and a few a minute per e-mail address (each sends mail). */
export const limitPasswordResets = limitPerIpAndEmail('password-reset', (config) => ({
  perIp: config.signInLimit.perIp,
  perEmail: Math.min(config.signInLimit.perEmail, PASSWORD_RESETS_PER_EMAIL_PER_MINUTE),
}));
const PASSWORD_RESETS_PER_EMAIL_PER_MINUTE = 3;

/** Second-factor codes a minute for one user, wherever they come from: six digits must not be guessable in bulk. */
export async function limitSecondFactorAttempts(ctx: Context, userId: string): Promise<void> {
  await spendAttempt(
    ctx,
    `second-factor:${userId}`,
    SECOND_FACTOR_ATTEMPTS_PER_MINUTE,
    (limit, retry) => `Too many two-factor codes tried (at most ${limit} a minute). Please wait ${retry} s.`,
  );
}
const SECOND_FACTOR_ATTEMPTS_PER_MINUTE = 5;

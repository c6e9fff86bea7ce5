/**
 * The retry schedule as data: `delaysMs[n]` is the wait after the (n+1)-th failed attempt; after the last one the
 * delivery is `failed`. The default comes from WEBHOOK_RETRY_DELAYS (10s,1m,5m,30m,2h,6h,12h,24h).
 */
export const JITTER_FRACTION = 0.1;

/** ±10 % so that many deliveries failing together do not all come back in the same instant. */
export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.max(0, Math.round(delayMs * (1 + JITTER_FRACTION * (2 * random() - 1))));
}

export type NextStep = { retry: true; delayMs: number } | { retry: false };

/** What follows a failed attempt, given how many attempts have now been made (1 after the first). */
export function nextAfterFailure(
  attemptsMade: number,
  delaysMs: readonly number[],
  random: () => number = Math.random,
): NextStep {
  const base = delaysMs[attemptsMade - 1];
  return base === undefined ? { retry: false } : { retry: true, delayMs: withJitter(base, random) };
}

/** Total attempts a delivery gets before it is `failed`: the first one plus one per delay. */
export function maxAttempts(delaysMs: readonly number[]): number {
  return delaysMs.length + 1;
}

/** A receiver's Retry-After is honoured up to the longest wait of the default schedule, never indefinitely. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** A 429/503 with Retry-After: the next attempt comes no sooner than the receiver asked (bounded), nor than scheduled. */
export function honourRetryAfter(step: NextStep, retryAfterMs: number | null | undefined): NextStep {
  if (!step.retry || retryAfterMs == null) return step;
  return { retry: true, delayMs: Math.max(step.delayMs, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)) };
}

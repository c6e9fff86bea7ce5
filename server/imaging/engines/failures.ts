/**
 * What a remote staging engine's failure means to the caller. Both are AppErrors, so the one error mapper turns them
 * into contract bodies, and the image operations refund the hold as they do for any failure after a charge.
 */
import { AppError } from '../../errors.js';

/** When the provider named no time, callers are asked to come back after this long. */
export const DEFAULT_RETRY_AFTER_SECONDS = 30;

/** The provider failed, was unreachable or too slow after retries: 503 with Retry-After. */
export class EngineUnavailable extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'The staging engine is unavailable right now; your credits were refunded and nothing was stored.',
  ) {
    super('engine_unavailable', message, {}, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
    this.name = 'EngineUnavailable';
  }
}

/** The provider refused the content (a policy or safety refusal): 422, not worth retrying as is. */
export class EngineRejected extends AppError {
  constructor(
    message = 'The staging engine refused this image (a content policy refusal); your credits were refunded.',
  ) {
    super('engine_rejected', message);
    this.name = 'EngineRejected';
  }
}

/** The first EngineUnavailable or EngineRejected in `error` or its causes (clients wrap what their fetch threw). */
export function engineFailureIn(error: unknown): EngineUnavailable | EngineRejected | null {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof EngineUnavailable || current instanceof EngineRejected) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

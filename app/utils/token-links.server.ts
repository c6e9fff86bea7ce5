import type { AppLoadContext } from '@remix-run/node';

/**
 * The sentence a page shows when a procedure refused the token of an e-mailed link. The server's own sentence names
 * the case (used, expired, for another address); a token that is not even the right shape gets `malformed`.
 * Server faults propagate to the error boundary.
 */
export function tokenProblem(context: AppLoadContext, error: unknown, malformed: string): string {
  const described = context.describeError(error);
  if (described.status >= 500) throw error;
  return described.details && described.details.length > 0 ? malformed : described.message;
}

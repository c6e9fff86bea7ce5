/*
 * The one import path of the routers (and of what reads procedure meta): the tRPC setup and every procedure builder.
 * ./setup.ts: context, meta, error formatter, router; ./session.ts: identity tokens, operators, the account a
 * request acts on; ./api-key.ts: API keys and their request budget; ./throttles.ts: per-IP, per-e-mail and
 * second-factor budgets; ./image.ts: the image endpoints (Idempotency-Key replay, image slots).
 */
export { apiKeyProcedure } from './api-key.js';
export { imageProcedure } from './image.js';
export {
  ACCOUNT_HEADER,
  operatorProcedure,
  sessionOriginOf,
  sessionProcedure,
  signedInUserIdOf,
  twoFactorRequiredError,
  type VerifiedSession,
} from './session.js';
export {
  type AuthKind,
  type Context,
  createCallerFactory,
  type DashboardRequest,
  type Meta,
  publicProcedure,
  router,
} from './setup.js';
export {
  limitPasswordResets,
  limitPerClientIp,
  limitSecondFactorAttempts,
  limitSignInAttempts,
} from './throttles.js';

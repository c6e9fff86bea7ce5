import { adminRouter } from './routers/admin.js';
import { adsRouter } from './routers/ads.js';
import { authRouter } from './routers/auth.js';
import { billingRouter } from './routers/billing.js';
import { claimsRouter } from './routers/claims.js';
import { creditsRouter } from './routers/credits.js';
import { earningsRouter } from './routers/earnings.js';
import { healthRouter } from './routers/health.js';
import { jobsRouter } from './routers/jobs.js';
import { keysRouter } from './routers/keys.js';
import { playgroundRouter } from './routers/playground.js';
import { securityRouter } from './routers/security.js';
import { settingsRouter } from './routers/settings.js';
import { stagingRouter } from './routers/staging.js';
import { teamsRouter } from './routers/teams.js';
import { usageRouter } from './routers/usage.js';
import { webhooksRouter } from './routers/webhooks.js';
import { createCallerFactory, router } from './trpc/index.js';

/** One router per domain; REST paths come from each procedure's `meta.openapi`. */
export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  security: securityRouter,
  teams: teamsRouter,
  keys: keysRouter,
  credits: creditsRouter,
  webhooks: webhooksRouter,
  staging: stagingRouter,
  playground: playgroundRouter,
  jobs: jobsRouter,
  claims: claimsRouter,
  billing: billingRouter,
  settings: settingsRouter,
  usage: usageRouter,
  ads: adsRouter,
  earnings: earningsRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type AppCaller = ReturnType<typeof createCaller>;

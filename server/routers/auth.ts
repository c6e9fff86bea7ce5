import path from 'node:path';
import { z } from 'zod';
import { iso } from '../clock.js';
import { sessionCookieHeader } from '../auth/session-cookie.js';
import { confirmPasswordReset, resendVerification, signIn, signUp, verifyEmail } from '../domain/security/identity.js';
import { recordPasswordResetRequest } from '../domain/security/password-resets.js';
import {
  limitPasswordResets,
  limitPerClientIp,
  limitSecondFactorAttempts,
  limitSignInAttempts,
  publicProcedure,
  router,
  sessionOriginOf,
  sessionProcedure,
  signedInUserIdOf,
} from '../trpc/index.js';
import { newPasswordField, noInput, successSchema, userSchema } from './schemas.js';

const credentialsInput = z.object({
  email: z.email().max(254),
  password: z.string().max(1024),
});
const signupInput = credentialsInput.extend({ password: newPasswordField });
const loginInput = credentialsInput.extend({
  otp: z
    .string()
    .max(16)
    .optional()
    .meta({ description: 'With two-factor sign-in on: the 6-digit code of the authenticator app' }),
  recovery_code: z
    .string()
    .max(32)
    .optional()
    .meta({ description: 'With two-factor sign-in on: one of the recovery codes instead of `otp` (each works once)' }),
});
const tokenInput = z.object({ token: z.string().min(1).max(256) });
const sessionOutput = z.object({
  token: z.string().meta({ description: 'Identity token: send as Authorization: Bearer <token>' }),
  user: userSchema,
});

/** Sign-in and sign-up count against the per-IP and per-e-mail attempt budgets before any password is hashed. */
const signInProcedure = publicProcedure.use(limitSignInAttempts);

const toUser = (account: { id: string; email: string; created_at: number }) => ({
  id: account.id,
  email: account.email,
  created_at: iso(account.created_at),
});

export const authRouter = router({
  signup: signInProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/signup',
        tags: ['Accounts'],
        summary: 'Create a dashboard account and sign in',
        description:
          'Creates an account for an e-mail address (compared case-insensitively) and a password of at least 10 characters, and signs it in: `token` is the identity token for the Token endpoints. Attempts are limited per client address and per e-mail address.',
        protect: false,
      },
      errors: ['conflict', 'rate_limited'],
      successStatus: 201,
    })
    .input(signupInput)
    .output(sessionOutput)
    .mutation(async ({ ctx, input }) => {
      const { db, clock, config } = ctx.services;
      const { account, token } = await signUp(db, {
        email: input.email,
        password: input.password,
        origin: sessionOriginOf(ctx),
        links: { publicBaseUrl: config.publicBaseUrl },
        now: clock.now(),
      });
      ctx.response.setStatus(201);
      return { token, user: toUser(account) };
    }),

  login: signInProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/login',
        tags: ['Accounts'],
        summary: 'Sign in and get an identity token',
        description:
          'Answers an identity token for the Token endpoints; it expires after 30 days without use. A wrong e-mail address and a wrong password get the same 401. With two-factor sign-in on, a call without `otp` or `recovery_code` answers 401 `otp_required` and no token; a wrong or reused code fails like a wrong password. Attempts are limited per client address and per e-mail address, codes per user.',
        protect: false,
      },
      errors: ['authentication_required', 'otp_required', 'rate_limited'],
    })
    .input(loginInput)
    .output(sessionOutput)
    .mutation(async ({ ctx, input }) => {
      const { db, clock } = ctx.services;
      const { account, token } = await signIn(db, {
        email: input.email,
        password: input.password,
        otp: input.otp,
        recoveryCode: input.recovery_code,
        origin: sessionOriginOf(ctx),
        now: clock.now(),
        limitSecondFactor: (userId) => limitSecondFactorAttempts(ctx, userId),
      });
      return { token, user: toUser(account) };
    }),

  verifyEmail: publicProcedure
    .use(limitPerClientIp('verify-email', (config) => config.claimAttemptsPerMinute))
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/verify-email',
        tags: ['Account security'],
        summary: 'Confirm an e-mail address with the token of the e-mailed link',
        description:
          'Confirms the address the verification e-mail went to, for the holder of the account’s password only: call it with that user’s identity token (or the dashboard session), or without one and with the account’s `password`. Otherwise 401 and the link stays unused. The token works once and for 7 days; a new one can be sent with POST /api/v1/auth/resend-verification. Buying credits needs a confirmed address.',
        protect: false,
      },
      errors: ['rate_limited', 'authentication_required'],
    })
    .input(
      tokenInput.extend({
        password: z.string().max(1024).optional().meta({
          description:
            'The password of the account the link is for; needed when the call carries no identity token of that user',
        }),
      }),
    )
    .output(z.object({ email: z.string(), verified: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      const { email } = await verifyEmail(ctx.services.db, {
        token: input.token,
        password: input.password,
        signedInUserId: await signedInUserIdOf(ctx),
        now: ctx.services.clock.now(),
      });
      return { email, verified: true as const };
    }),

  resendVerification: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/resend-verification',
        tags: ['Account security'],
        summary: 'Send the verification e-mail again',
        description:
          'Sends a new verification link to the signed-in user’s address (earlier links stop working). Answers 202; nothing is sent when the address is confirmed already.',
      },
      successStatus: 202,
    })
    .input(noInput)
    .output(z.object({ accepted: z.literal(true) }))
    .mutation(async ({ ctx }) => {
      const { db, clock, config } = ctx.services;
      await resendVerification(db, {
        userId: ctx.user.id,
        email: ctx.user.email,
        links: { publicBaseUrl: config.publicBaseUrl },
        now: clock.now(),
      });
      ctx.response.setStatus(202);
      return { accepted: true as const };
    }),

  requestPasswordReset: publicProcedure
    .use(limitPasswordResets)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/password-reset',
        tags: ['Account security'],
        summary: 'E-mail a password-reset link',
        description:
          'Answers 202 `{accepted: true}` whatever the address, at once and in the same time (the link is prepared after the answer); when it belongs to an account, one e-mail with a link valid for 1 hour is sent. Requests are limited per client address and per e-mail address.',
        protect: false,
      },
      errors: ['rate_limited'],
      successStatus: 202,
    })
    .input(z.object({ email: z.email().max(254) }))
    .output(z.object({ accepted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      // Only the request is written before the answer, the same for every address: a registered one (a token and a
      // message written) would otherwise answer measurably later than an unknown one, which tells who has an account.
      // The token and the message are prepared once the answer is on its way, by this process or, if it dies first,
      // by any other (domain/security/password-resets.ts).
      await recordPasswordResetRequest(ctx.services.db, { email: input.email, now: ctx.services.clock.now() });
      ctx.response.setStatus(202);
      return { accepted: true as const };
    }),

  confirmPasswordReset: publicProcedure
    .use(limitPerClientIp('password-reset-confirm', (config) => config.claimAttemptsPerMinute))
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/password-reset/confirm',
        tags: ['Account security'],
        summary: 'Set a new password with the token of the reset link',
        description:
          'Sets the new password (at least 10 characters). The token works once and for 1 hour; every session of the user ends, so every device signs in again.',
        protect: false,
      },
      errors: ['rate_limited'],
    })
    .input(tokenInput.extend({ password: newPasswordField }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await confirmPasswordReset(ctx.services.db, {
        token: input.token,
        password: input.password,
        origin: sessionOriginOf(ctx),
        now: ctx.services.clock.now(),
      });
      return { success: true as const };
    }),

  logout: sessionProcedure
    .meta({
      permission: 'user',
      changesSession: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/logout',
        tags: ['Accounts'],
        summary: 'End this identity token at once',
        description:
          'Ends the session of this identity token: it is refused from the next request on, and the dashboard cookie is cleared.',
      },
    })
    .input(noInput)
    .output(successSchema)
    .mutation(async ({ ctx }) => {
      await ctx.services.auth.invalidateSession(ctx.session.id);
      ctx.response.appendCookie(sessionCookieHeader(ctx.services.auth, null, { secure: ctx.secureTransport }));
      return { success: true } as const;
    }),

  /**
   * Dashboard only (no REST path): where the e-mails of this server go, so a page asking to open the confirmation
   * link can say where it is. With no SMTP_URL (a local run) they are files in DATA_DIR/mail/.
   */
  mailDelivery: sessionProcedure
    .meta({ permission: 'user' })
    .input(noInput)
    .output(z.object({ folder: z.string().nullable() }))
    .query(({ ctx }) => {
      const { mail, dataDir } = ctx.services.config;
      return { folder: mail.smtpUrl ? null : path.join(dataDir, 'mail') };
    }),

  me: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'GET',
        path: '/api/v1/me',
        tags: ['Accounts'],
        summary: 'The signed-in account',
        description:
          'The account the identity token belongs to: its id, e-mail address and when it was created, and whether the user is a Roomstage operator.',
      },
    })
    .input(noInput)
    .output(
      userSchema.extend({
        operator: z.boolean().meta({
          description: 'A Roomstage operator (OPERATOR_EMAILS, e-mail confirmed): the dashboard shows /admin',
        }),
      }),
    )
    .query(({ ctx }) => ({
      ...toUser({ id: ctx.user.id, email: ctx.user.email, created_at: ctx.user.createdAt }),
      operator: ctx.user.operator,
    })),
});

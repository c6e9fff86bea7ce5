import { z } from 'zod';
import { iso } from '../clock.js';
import { createAccount, findAccountByCredentials } from '../domain/accounts/accounts.js';
import { sessionCookieHeader } from '../auth/session-cookie.js';
import { AppError } from '../errors.js';
import { limitSignInAttempts, publicProcedure, router, sessionProcedure } from '../trpc.js';
import { noInput, successSchema, userSchema } from './schemas.js';

const credentialsInput = z.object({
  email: z.email().max(254),
  password: z.string().max(1024),
});
const signupInput = credentialsInput.extend({
  password: z
    .string()
    .min(10, 'Password must have at least 10 characters.')
    .max(1024)
    // Counted once: a password under 10 characters already fails the length check above.
    .refine(
      (password) => password.length < 10 || password.trim().length >= 10,
      'Password must have at least 10 characters, not counting spaces at either end.',
    ),
});
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
      const { db, auth, clock } = ctx.services;
      const account = await createAccount(db, { email: input.email, password: input.password, now: clock.now() });
      const session = await auth.createSession(account.id, {});
      ctx.response.setStatus(201);
      return { token: session.id, user: toUser(account) };
    }),

  login: signInProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/login',
        tags: ['Accounts'],
        summary: 'Sign in and get an identity token',
        description:
          'Answers an identity token for the Token endpoints; it expires after 30 days without use. A wrong e-mail address and a wrong password get the same 401. Attempts are limited per client address and per e-mail address.',
        protect: false,
      },
      errors: ['authentication_required', 'rate_limited'],
    })
    .input(credentialsInput)
    .output(sessionOutput)
    .mutation(async ({ ctx, input }) => {
      const { db, auth } = ctx.services;
      const account = await findAccountByCredentials(db, input.email, input.password);
      if (!account) throw new AppError('authentication_required', 'The e-mail or password is not correct.');
      const session = await auth.createSession(account.id, {});
      return { token: session.id, user: toUser(account) };
    }),

  logout: sessionProcedure
    .meta({
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

  me: sessionProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/me',
        tags: ['Accounts'],
        summary: 'The signed-in account',
        description: 'The account the identity token belongs to: its id, e-mail address and when it was created.',
      },
    })
    .input(noInput)
    .output(userSchema)
    .query(({ ctx }) => toUser({ id: ctx.account.id, email: ctx.account.email, created_at: ctx.account.createdAt })),
});

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
        protect: false,
      },
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
        protect: false,
      },
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
    .meta({ openapi: { method: 'GET', path: '/api/v1/me', tags: ['Accounts'], summary: 'The signed-in account' } })
    .input(noInput)
    .output(userSchema)
    .query(({ ctx }) => toUser({ id: ctx.account.id, email: ctx.account.email, created_at: ctx.account.createdAt })),
});

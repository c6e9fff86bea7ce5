import { z } from 'zod';
import { listAudit } from '../domain/audit/audit.js';
import { changePassword } from '../domain/security/identity.js';
import { endSessions, listSessions } from '../domain/security/sessions.js';
import { disableTwoFactor, enableTwoFactor, setUpTwoFactor, twoFactorStatus } from '../domain/security/two-factor.js';
import type { Services } from '../services.js';
import { limitSecondFactorAttempts, router, sessionProcedure } from '../trpc/index.js';
import { auditEntrySchema, newPasswordField, noInput, nullableTimestamp, successSchema } from './schemas.js';

const securityLinks = (services: Services) => ({ securityUrl: `${services.config.publicBaseUrl}/security` });

const sessionSchema = z.object({
  id: z.string(),
  created_at: nullableTimestamp,
  last_seen_at: nullableTimestamp.meta({ description: 'Refreshed at most once a minute' }),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  current: z.boolean().meta({ description: 'The session of this identity token' }),
});

const twoFactorSecretSchema = z.object({ secret: z.string(), otpauth_url: z.string(), qr_svg: z.string() });

export const securityRouter = router({
  changePassword: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'POST',
        path: '/api/v1/me/password',
        tags: ['Account security'],
        summary: 'Change the password; other sessions end',
        description:
          'Needs the current password. Every other session of the user ends; this identity token keeps working.',
      },
    })
    .input(z.object({ current_password: z.string().max(1024), new_password: newPasswordField }))
    .output(successSchema)
    .mutation(async ({ ctx, input }) => {
      await changePassword(ctx.services.db, {
        userId: ctx.user.id,
        currentPassword: input.current_password,
        newPassword: input.new_password,
        currentToken: ctx.session.id,
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      });
      return { success: true as const };
    }),

  twoFactorStatus: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'GET',
        path: '/api/v1/me/2fa',
        tags: ['Account security'],
        summary: 'Whether two-factor sign-in is on',
        description:
          'Whether two-factor sign-in is on, since when, and how many unused recovery codes are left. While a setup waits for its first code, `pending_setup` repeats that secret and its QR code; the secret of two-factor sign-in once on is never answered.',
      },
    })
    .input(noInput)
    .output(
      z.object({
        enabled: z.boolean(),
        enabled_at: nullableTimestamp,
        recovery_codes_remaining: z.number().int(),
        pending_setup: twoFactorSecretSchema.nullable(),
      }),
    )
    .query(({ ctx }) => twoFactorStatus(ctx.services.db, { userId: ctx.user.id, email: ctx.user.email })),

  setUpTwoFactor: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'POST',
        path: '/api/v1/me/2fa/setup',
        tags: ['Account security'],
        summary: 'Start two-factor setup: a new secret and its QR code',
        description:
          'Answers a new TOTP secret (RFC 6238, 6 digits, 30 s), its otpauth:// URL and the URL as an SVG QR code for an authenticator app. Nothing changes at sign-in until POST /api/v1/me/2fa/enable confirms a code.',
      },
      errors: ['conflict'],
    })
    .input(noInput)
    .output(twoFactorSecretSchema)
    .mutation(({ ctx }) => setUpTwoFactor(ctx.services.db, { userId: ctx.user.id, email: ctx.user.email })),

  enableTwoFactor: sessionProcedure
    .meta({
      permission: 'user',
      changesSession: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/me/2fa/enable',
        tags: ['Account security'],
        summary: 'Turn two-factor sign-in on with a first code',
        description:
          'Confirms the secret from setup with a current code and turns two-factor sign-in on. Answers 10 recovery codes, shown only here: each can replace a code once.',
      },
      errors: ['conflict'],
    })
    .input(z.object({ code: z.string().max(16) }))
    .output(z.object({ enabled: z.literal(true), recovery_codes: z.array(z.string()) }))
    .mutation(async ({ ctx, input }) => {
      await limitSecondFactorAttempts(ctx, ctx.user.id);
      const codes = await enableTwoFactor(ctx.services.db, {
        userId: ctx.user.id,
        email: ctx.user.email,
        code: input.code,
        origin: ctx.audit,
        links: securityLinks(ctx.services),
        now: ctx.services.clock.now(),
      });
      return { enabled: true as const, recovery_codes: codes };
    }),

  disableTwoFactor: sessionProcedure
    .meta({
      permission: 'user',
      changesSession: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/me/2fa/disable',
        tags: ['Account security'],
        summary: 'Turn two-factor sign-in off',
        description:
          'Needs the password and, while two-factor sign-in is on, a current `code` or a `recovery_code`. The recovery codes stop working.',
      },
      errors: ['otp_required'],
    })
    .input(
      z.object({
        password: z.string().max(1024),
        code: z.string().max(16).optional(),
        recovery_code: z.string().max(32).optional(),
      }),
    )
    .output(z.object({ enabled: z.literal(false) }))
    .mutation(async ({ ctx, input }) => {
      await limitSecondFactorAttempts(ctx, ctx.user.id);
      await disableTwoFactor(ctx.services.db, {
        userId: ctx.user.id,
        email: ctx.user.email,
        password: input.password,
        otp: input.code,
        recoveryCode: input.recovery_code,
        origin: ctx.audit,
        links: securityLinks(ctx.services),
        now: ctx.services.clock.now(),
      });
      return { enabled: false as const };
    }),

  sessions: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'GET',
        path: '/api/v1/me/sessions',
        tags: ['Account security'],
        summary: 'The signed-in user’s active sessions',
        description:
          'Every unexpired session of the user, most recently used first, with where it was opened from; `current` marks this identity token’s.',
      },
    })
    .input(noInput)
    .output(z.object({ sessions: z.array(sessionSchema) }))
    .query(async ({ ctx }) => ({
      sessions: await listSessions(ctx.services.db, {
        userId: ctx.user.id,
        currentToken: ctx.session.id,
        now: ctx.services.clock.now(),
      }),
    })),

  endOtherSessions: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/me/sessions',
        tags: ['Account security'],
        summary: 'Sign out everywhere else',
        description: 'Ends every session of the user but this one; answers how many ended.',
      },
    })
    .input(noInput)
    .output(z.object({ ended: z.number().int() }))
    .mutation(async ({ ctx }) => ({
      ended: await endSessions(ctx.services.db, { userId: ctx.user.id, keepToken: ctx.session.id }),
    })),

  auditLog: sessionProcedure
    .meta({
      permission: 'read_audit',
      openapi: {
        method: 'GET',
        path: '/api/v1/audit-log',
        tags: ['Account security'],
        summary: 'Security and money changes of the account, newest first',
        description:
          'Sign-ins, password and two-factor changes, keys, webhooks, settings and purchases, with who made them (user or key), from which address and client. Paged: pass the last `id` as `starting_after`; filter by `action` or `actor` (an id or label). Entries are kept AUDIT_RETENTION (365 days).',
      },
      errors: ['not_found'],
    })
    .input(
      z.object({
        limit: z.coerce.number().int().min(1).max(100).default(20),
        starting_after: z.string().max(64).optional(),
        action: z.string().max(64).optional(),
        actor: z.string().max(254).optional(),
      }),
    )
    .output(z.object({ entries: z.array(auditEntrySchema), has_more: z.boolean() }))
    .query(({ ctx, input }) =>
      listAudit(ctx.services.db, {
        accountId: ctx.account.id,
        limit: input.limit,
        startingAfter: input.starting_after,
        action: input.action,
        actor: input.actor,
      }),
    ),
});

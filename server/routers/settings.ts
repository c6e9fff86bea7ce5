import { z } from 'zod';
import {
  DEFAULT_LOW_BALANCE_THRESHOLD,
  getNotificationSettings,
  getSettings,
  MAX_LOW_BALANCE_THRESHOLD,
  setNotificationSettings,
} from '../domain/settings/settings.js';
import { getSecuritySettings, setSecuritySettings } from '../domain/settings/security.js';
import { getStagingSettings, setStagingSettings } from '../domain/settings/staging.js';
import { LABELS } from '../imaging/engine.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { disclosureSchema, noInput } from './schemas.js';

const stagingSettingsSchema = z.object({
  disclosure: disclosureSchema.meta({
    description:
      'The disclosure profile of every staged, decluttered or re-rendered output unless the request names one (default caption)',
  }),
  label: z.enum(LABELS).meta({
    description: 'The older view of the same setting: virtually_staged when the profile draws the mark, else none',
  }),
});

/** Either field sets the default; `label` is the older name (virtually_staged = label, none = none). */
const stagingSettingsInput = z
  .object({ disclosure: disclosureSchema.optional(), label: z.enum(LABELS).optional() })
  .refine((input) => input.disclosure !== undefined || input.label !== undefined, {
    message: 'Send disclosure (none, label, caption or ca_ab723).',
    path: ['disclosure'],
  });

const notificationsSchema = z.object({
  low_balance_threshold: z
    .number()
    .int()
    .min(0)
    .max(MAX_LOW_BALANCE_THRESHOLD)
    .meta({
      description: `credits.low is emitted once each time the balance falls below this (default ${DEFAULT_LOW_BALANCE_THRESHOLD})`,
    }),
});

const securitySettingsSchema = z.object({
  require_2fa: z.boolean().meta({
    description:
      'Members without two-factor sign-in are refused on this account (403 two_factor_required) until they turn it on; API keys are not affected',
  }),
});

export const settingsSchema = z.object({
  auto_topup: z.object({ enabled: z.boolean(), amount: z.number().int(), threshold: z.number().int() }),
  notifications: notificationsSchema,
});

export const settingsRouter = router({
  get: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/settings',
        tags: ['Settings'],
        summary: 'All settings of the account: auto top-up and notifications',
        description:
          'The auto top-up settings and the low-balance threshold of `credits.low` of the signed-in account, in one answer.',
      },
    })
    .input(noInput)
    .output(settingsSchema)
    .query(({ ctx }) => getSettings(ctx.services.db, ctx.account.id)),

  notifications: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/settings/notifications',
        tags: ['Settings'],
        summary: 'The low-balance threshold of credits.low',
        description:
          'The balance below which `credits.low` is sent to the account’s webhooks, once each time the balance falls below it (default 5).',
      },
    })
    .input(noInput)
    .output(notificationsSchema)
    .query(({ ctx }) => getNotificationSettings(ctx.services.db, ctx.account.id)),

  updateNotifications: sessionProcedure
    .meta({
      permission: 'billing',
      openapi: {
        method: 'PUT',
        path: '/api/v1/settings/notifications',
        tags: ['Settings'],
        summary: 'Set the low-balance threshold (0–100 000) of credits.low',
        description:
          'Sets the balance (0–100 000) below which `credits.low` is sent, once each time the balance falls below it.',
      },
    })
    .input(notificationsSchema)
    .output(notificationsSchema)
    .mutation(({ ctx, input }) =>
      setNotificationSettings(ctx.services.db, ctx.account.id, input, {
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      }),
    ),

  staging: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/settings/staging',
        tags: ['Settings'],
        summary: 'The default disclosure profile of staged, decluttered and re-rendered images',
        description:
          'disclosure: what every output carries unless the request names a profile (default caption); label: the older view of it.',
      },
    })
    .input(noInput)
    .output(stagingSettingsSchema)
    .query(({ ctx }) => getStagingSettings(ctx.services.db, ctx.account.id)),

  updateStaging: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'PUT',
        path: '/api/v1/settings/staging',
        tags: ['Settings'],
        summary: 'Set the default disclosure profile: none, label, caption or ca_ab723',
        description:
          'Send {disclosure}; the older {label: "virtually_staged" | "none"} is still accepted (= label / none).',
      },
    })
    .input(stagingSettingsInput)
    .output(stagingSettingsSchema)
    .mutation(({ ctx, input }) => setStagingSettings(ctx.services.db, ctx.account.id, input, ctx.services.clock.now())),

  security: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/settings/security',
        tags: ['Settings'],
        summary: 'Whether the account requires two-factor sign-in of its members',
        description:
          'require_2fa: while true, a member whose user has not turned on two-factor sign-in is refused on this account with 403 two_factor_required, except for their own things (/me, two-factor setup, sessions, sign-out, /accounts). API keys are not affected.',
      },
    })
    .input(noInput)
    .output(securitySettingsSchema)
    .query(({ ctx }) => getSecuritySettings(ctx.services.db, ctx.account.id)),

  updateSecurity: sessionProcedure
    .meta({
      permission: 'manage_members',
      openapi: {
        method: 'PUT',
        path: '/api/v1/settings/security',
        tags: ['Settings'],
        summary: 'Require two-factor sign-in of the account’s members (owners and admins)',
        description:
          'Turning require_2fa on needs the caller to have two-factor sign-in on themselves (409 conflict otherwise), so nobody locks themselves out. It applies from the next request of every member. Recorded in the audit log as settings.updated.',
      },
      errors: ['conflict'],
    })
    .input(securitySettingsSchema)
    .output(securitySettingsSchema)
    .mutation(({ ctx, input }) =>
      setSecuritySettings(ctx.services.db, {
        accountId: ctx.account.id,
        userId: ctx.user.id,
        settings: input,
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      }),
    ),
});

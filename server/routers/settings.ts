import { z } from 'zod';
import {
  DEFAULT_LOW_BALANCE_THRESHOLD,
  getNotificationSettings,
  getSettings,
  MAX_LOW_BALANCE_THRESHOLD,
  setNotificationSettings,
} from '../domain/settings/settings.js';
import { getStagingSettings, setStagingSettings } from '../domain/settings/staging.js';
import { DISCLOSURE_PROFILES } from '../domain/staging/disclosure.js';
import { LABELS } from '../imaging/engine.js';
import { router, sessionProcedure } from '../trpc.js';
import { noInput } from './schemas.js';

export const disclosureSchema = z.enum(DISCLOSURE_PROFILES).meta({
  description:
    'none: nothing; label: a "Virtually staged" mark in a corner; caption: no mark, disclosure_caption with the link to the original; ca_ab723: the mark, a QR code to the original and the caption',
});

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

export const settingsSchema = z.object({
  auto_topup: z.object({ enabled: z.boolean(), amount: z.number().int(), threshold: z.number().int() }),
  notifications: notificationsSchema,
});

export const settingsRouter = router({
  get: sessionProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/settings',
        tags: ['Settings'],
        summary: 'All settings of the account: auto top-up and notifications',
      },
    })
    .input(noInput)
    .output(settingsSchema)
    .query(({ ctx }) => getSettings(ctx.services.db, ctx.account.id)),

  notifications: sessionProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/settings/notifications',
        tags: ['Settings'],
        summary: 'The low-balance threshold of credits.low',
      },
    })
    .input(noInput)
    .output(notificationsSchema)
    .query(({ ctx }) => getNotificationSettings(ctx.services.db, ctx.account.id)),

  updateNotifications: sessionProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/settings/notifications',
        tags: ['Settings'],
        summary: 'Set the low-balance threshold (0–100 000) of credits.low',
      },
    })
    .input(notificationsSchema)
    .output(notificationsSchema)
    .mutation(({ ctx, input }) => setNotificationSettings(ctx.services.db, ctx.account.id, input)),

  staging: sessionProcedure
    .meta({
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
});

import { z } from 'zod';
import type { Webhook } from '../../db/schema.js';
import { iso } from '../clock.js';
import { sendTestPing } from '../domain/webhooks/delivery/test-ping.js';
import {
  type DeliveryView,
  getWebhook,
  listDeliveries,
  retryDelivery,
  rotateWebhookSecret,
  upsertWebhook,
} from '../domain/webhooks/webhooks.js';
import { roleAllows } from '../domain/teams/roles.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { isoTimestamp, keyIdParam, noInput, nullableTimestamp, strictBoolean } from './schemas.js';

const TAGS = ['Webhooks'];

const webhookSchema = z.object({
  key_id: z.number().int(),
  url: z.string().nullable(),
  enabled: z.boolean(),
  secret: z.string().nullable().meta({
    description:
      'whsec_… signing secret: X-Webhook-Signature = sha256=<hex HMAC-SHA256 of the raw body>; webhook-signature (Standard Webhooks) = v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"> keyed with the base64-decoded part after whsec_',
  }),
  created_at: nullableTimestamp,
  updated_at: nullableTimestamp,
  disabled_reason: z.string().nullable().meta({
    description:
      'Why Roomstage switched the webhook off (the receiver answered 410 Gone); null otherwise, cleared by the next PUT',
  }),
});

const deliverySchema = z.object({
  id: z.string(),
  event_id: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: nullableTimestamp,
  delivered_at: nullableTimestamp,
  created_at: isoTimestamp,
});

/**
 * `withSecret`: only roles that may change webhooks see the signing secret (anyone holding it can forge events the
 * receiver accepts); the others read the configuration with `secret: null`.
 */
function presentWebhook(keyId: number, webhook: Webhook | null, withSecret: boolean): z.infer<typeof webhookSchema> {
  if (!webhook)
    return {
      key_id: keyId,
      url: null,
      enabled: false,
      secret: null,
      created_at: null,
      updated_at: null,
      disabled_reason: null,
    };
  return {
    key_id: webhook.key_id,
    url: webhook.url,
    enabled: webhook.enabled === 1,
    secret: withSecret ? webhook.secret : null,
    created_at: iso(webhook.created_at),
    updated_at: iso(webhook.updated_at),
    disabled_reason: webhook.disabled_reason,
  };
}

function presentDelivery(delivery: DeliveryView): z.infer<typeof deliverySchema> {
  return {
    ...delivery,
    next_attempt_at: iso(delivery.next_attempt_at),
    delivered_at: iso(delivery.delivered_at),
    created_at: iso(delivery.created_at),
  };
}

const httpUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), {
    message: 'Must be an absolute http:// or https:// URL',
  })
  .meta({
    description:
      'Where events are POSTed; http or https, public hosts only unless the operator allows private networks',
  });

const keyInput = z.object({ id: keyIdParam });

export const webhooksRouter = router({
  /** Dashboard only (no REST path): what the operator allows as a webhook url, so the form's help text tells the truth. */
  policy: sessionProcedure
    .meta({ permission: 'read' })
    .input(noInput)
    .output(z.object({ allow_private_network: z.boolean() }))
    .query(({ ctx }) => ({ allow_private_network: ctx.services.config.allowPrivateNetwork })),

  get: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/keys/{id}/webhook',
        tags: TAGS,
        summary: 'The webhook of an API key (url, enabled, signing secret)',
        description:
          'The webhook of one of the account’s keys. `secret` is shown only to roles that may change webhooks (owner, admin, developer); other roles get `secret: null`. While it was never configured, `url` and `secret` are null and `enabled` is false.',
      },
      errors: ['not_found'],
    })
    .input(keyInput)
    .output(webhookSchema)
    .query(async ({ ctx, input }) => {
      const { keyId, webhook } = await getWebhook(ctx.services.db, ctx.account.id, input.id);
      return presentWebhook(keyId, webhook, roleAllows(ctx.account.role, 'develop'));
    }),

  put: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'PUT',
        path: '/api/v1/keys/{id}/webhook',
        tags: TAGS,
        summary: 'Set the webhook url and switch it on or off; the secret is created the first time and kept after',
        description:
          'Sets where the key’s events are POSTed (http or https; public hosts only unless the operator allows private networks) and switches delivery on or off. The first call creates the `whsec_…` signing secret; later calls keep it.',
      },
      errors: ['not_found'],
    })
    .input(keyInput.extend({ url: httpUrl, enabled: strictBoolean }))
    .output(webhookSchema)
    .mutation(async ({ ctx, input }) => {
      const { db, clock, config } = ctx.services;
      const webhook = await upsertWebhook(db, {
        accountId: ctx.account.id,
        keyId: input.id,
        url: input.url,
        enabled: input.enabled,
        now: clock.now(),
        policy: { allowPrivateNetwork: config.allowPrivateNetwork },
        origin: ctx.audit,
      });
      return presentWebhook(input.id, webhook, true);
    }),

  test: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/keys/{id}/webhook/test',
        tags: TAGS,
        summary: 'Send one signed test.ping now (also while disabled) and report the result',
        description:
          'Delivers one signed `test.ping` event to the url now, also while the webhook is disabled, and reports what the receiver answered and how long it took. It is logged like any delivery and not retried by itself.',
      },
      errors: ['not_found', 'webhook_not_configured'],
    })
    .input(keyInput)
    .output(
      z.object({
        delivered: z.boolean(),
        status_code: z.number().int().nullable(),
        duration_ms: z.number().int(),
        event_id: z.string(),
        error: z.string().optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const { db, clock, config } = ctx.services;
      return sendTestPing(db, {
        accountId: ctx.account.id,
        keyId: input.id,
        now: () => clock.now(),
        policy: { allowPrivateNetwork: config.allowPrivateNetwork },
      });
    }),

  rotateSecret: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/keys/{id}/webhook/rotate-secret',
        tags: TAGS,
        summary:
          'Replace the signing secret; attempts are signed with the new one, and for 24 h also with the old one in webhook-signature',
        description:
          'Creates a new signing secret. `X-Webhook-Signature` uses the new one at once; for 24 hours `webhook-signature` carries signatures with both, so receivers can switch without rejecting events.',
      },
      errors: ['not_found', 'webhook_not_configured'],
    })
    .input(keyInput)
    .output(webhookSchema)
    .mutation(async ({ ctx, input }) => {
      const webhook = await rotateWebhookSecret(ctx.services.db, {
        accountId: ctx.account.id,
        keyId: input.id,
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      });
      return presentWebhook(input.id, webhook, true);
    }),

  deliveries: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/keys/{id}/webhook/deliveries',
        tags: TAGS,
        summary: 'Recent deliveries of the webhook, newest first',
        description:
          'The latest deliveries of the key’s events (up to `limit`, default 50), newest first, with their status, attempts, last answer and next attempt.',
      },
      errors: ['not_found'],
    })
    .input(keyInput.extend({ limit: z.coerce.number().int().min(1).max(200).default(50) }))
    .output(z.object({ deliveries: z.array(deliverySchema) }))
    .query(async ({ ctx, input }) => {
      const deliveries = await listDeliveries(ctx.services.db, {
        accountId: ctx.account.id,
        keyId: input.id,
        limit: input.limit,
      });
      return { deliveries: deliveries.map(presentDelivery) };
    }),

  retryDelivery: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/keys/{id}/webhook/deliveries/{delivery_id}/retry',
        tags: TAGS,
        summary: 'Queue a delivery again for one more attempt now',
        description:
          'Queues one delivery again, whatever its status, for one more attempt now. The webhook must be enabled.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(keyInput.extend({ delivery_id: z.string().min(1).max(40) }))
    .output(deliverySchema)
    .mutation(async ({ ctx, input }) => {
      const delivery = await retryDelivery(ctx.services.db, {
        accountId: ctx.account.id,
        keyId: input.id,
        deliveryId: input.delivery_id,
        now: ctx.services.clock.now(),
      });
      return presentDelivery(delivery);
    }),
});

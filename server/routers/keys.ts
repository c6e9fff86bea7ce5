import { z } from 'zod';
import type { ApiKey } from '../../db/schema.js';
import { iso } from '../clock.js';
import { createApiKey, KEY_SCOPES, listApiKeys, revokeApiKey, scopesOf } from '../domain/keys/api-keys.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { isoTimestamp, keyIdParam, noInput, nullableTimestamp } from './schemas.js';

const keyMode = z.enum(['live', 'test']);
const keyStatus = z.enum(['active', 'revoked']);
const keyScope = z.enum(KEY_SCOPES);
const scopesField = z.array(keyScope).meta({ description: 'What the key may be used for' });
const expiresAtField = nullableTimestamp.meta({ description: 'After this the key is refused (401); null = never' });

const keySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  mode: keyMode,
  prefix: z.string().meta({ description: 'First 12 characters of the key, for recognising it' }),
  status: keyStatus,
  created_at: isoTimestamp,
  last_used_at: nullableTimestamp,
  revoked_at: nullableTimestamp,
  scopes: scopesField,
  expires_at: expiresAtField,
  created_by: z
    .object({ user_id: z.string(), email: z.string().nullable() })
    .nullable()
    .meta({ description: 'The member who created the key; null for keys made before this was recorded' }),
});

function presentKey(key: ApiKey & { created_by_email?: string | null }): z.infer<typeof keySchema> {
  return {
    id: key.id,
    name: key.name,
    mode: key.mode,
    prefix: key.prefix,
    status: key.revoked_at === null ? 'active' : 'revoked',
    created_at: iso(key.created_at),
    last_used_at: iso(key.last_used_at),
    revoked_at: iso(key.revoked_at),
    scopes: scopesOf(key),
    expires_at: iso(key.expires_at),
    created_by: key.created_by === null ? null : { user_id: key.created_by, email: key.created_by_email ?? null },
  };
}

export const keysRouter = router({
  create: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/keys',
        tags: ['API keys'],
        summary: 'Create an API key (shown once); the first key of an account grants 10 credits',
        description:
          'Creates a live (`sk_live_…`) or test (`sk_test_…`) key; both spend the same credits. The plaintext `key` appears only in this answer: store it. The first key an account ever creates grants 10 free credits (`bonus_credits_granted`). An account holds at most 100 active keys. `scopes` limits what the key may call (default: everything; a call outside them is 403 `insufficient_scope`); after `expires_at` the key is refused with 401.',
      },
      errors: ['conflict'],
      successStatus: 201,
    })
    .input(
      z
        .object({
          name: z.string().trim().min(1).max(64).default('Default'),
          mode: keyMode.default('live'),
          scopes: z
            .array(keyScope)
            .min(1)
            .max(KEY_SCOPES.length)
            .optional()
            .meta({ description: 'Scopes the key may use; omitted: all of them' }),
          expires_at: z.iso
            .datetime()
            .optional()
            .meta({ description: 'ISO 8601 time after which the key is refused; omitted: never' }),
        })
        .default({ name: 'Default', mode: 'live' }),
    )
    .output(
      z.object({
        id: z.number().int(),
        name: z.string(),
        mode: keyMode,
        key: z.string().meta({ description: 'The plaintext key. Shown only in this response.' }),
        prefix: z.string(),
        status: z.literal('active'),
        created_at: isoTimestamp,
        bonus_credits_granted: z.number().int(),
        scopes: scopesField,
        expires_at: expiresAtField,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { db, clock } = ctx.services;
      const created = await createApiKey(db, {
        accountId: ctx.account.id,
        name: input.name,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expires_at === undefined ? null : Date.parse(input.expires_at),
        origin: ctx.audit,
        now: clock.now(),
      });
      ctx.response.setStatus(201);
      const { id, name, mode, prefix, created_at, scopes, expires_at } = presentKey(created.key);
      return {
        id,
        name,
        mode,
        key: created.plaintext,
        prefix,
        status: 'active' as const,
        created_at,
        bonus_credits_granted: created.bonusCreditsGranted,
        scopes,
        expires_at,
      };
    }),

  list: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/keys',
        tags: ['API keys'],
        summary: "The account's API keys, newest first",
        description:
          'Every key of the account, active and revoked, newest first, each shown by its 12-character prefix with when it was last used and who created it (`created_by`).',
      },
    })
    .input(noInput)
    .output(z.object({ keys: z.array(keySchema) }))
    .query(async ({ ctx }) => ({ keys: (await listApiKeys(ctx.services.db, ctx.account.id)).map(presentKey) })),

  revoke: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/keys/{id}',
        tags: ['API keys'],
        summary: 'Revoke an API key; it is rejected from the next request on',
        description:
          'Revokes one of the account’s keys: every server answers 401 to it from the next request on. Revoking a revoked key answers 200 again.',
      },
      errors: ['not_found'],
    })
    .input(z.object({ id: keyIdParam }))
    .output(z.object({ id: z.number().int(), status: z.literal('revoked'), revoked_at: isoTimestamp }))
    .mutation(async ({ ctx, input }) => {
      const key = await revokeApiKey(ctx.services.db, {
        accountId: ctx.account.id,
        keyId: input.id,
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      });
      return { id: key.id, status: 'revoked' as const, revoked_at: iso(key.revoked_at ?? ctx.services.clock.now()) };
    }),
});

import { z } from 'zod';
import { sessionIdHash } from '../auth/lucia-adapter.js';
import { acceptInvite, inviteMember, revokeInvite } from '../domain/teams/invites.js';
import { changeMemberRole, listMembers, removeMember } from '../domain/teams/members.js';
import { listAccountsOf, switchAccount } from '../domain/teams/memberships.js';
import { PERMISSION_NAMES, ROLES, roleAllows } from '../domain/teams/roles.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { isoTimestamp, noInput } from './schemas.js';

const roleSchema = z.enum(ROLES).meta({ description: 'owner, admin, developer, billing, agent or viewer' });
const accountSchema = z.object({ id: z.string(), name: z.string(), role: roleSchema });
const memberSchema = z.object({ user_id: z.string(), email: z.string(), role: roleSchema, joined_at: isoTimestamp });
const listedMemberSchema = memberSchema.extend({
  working_keys: z.number().int().meta({
    description:
      'How many of the account’s API keys this member created that still work (removing them can revoke these)',
  }),
});
const inviteSchema = z.object({ id: z.string(), email: z.string(), role: roleSchema, expires_at: isoTimestamp });
const userIdParam = z.string().min(1).max(64).meta({ description: 'The member’s user id (`user_id` in GET /members)' });

const ROLE_RULES =
  'Owners may change everything; admins everything but owners (making, changing, removing or inviting an owner needs an owner).';

export const teamsRouter = router({
  accounts: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'GET',
        path: '/api/v1/accounts',
        tags: ['Teams'],
        summary: 'The accounts the signed-in user belongs to',
        description: 'Each account the user is a member of, with their role there; their personal account first.',
      },
    })
    .input(noInput)
    .output(z.object({ accounts: z.array(accountSchema) }))
    .query(async ({ ctx }) => ({ accounts: await listAccountsOf(ctx.services.db, ctx.user.id) })),

  /**
   * Dashboard only: the account this request acts on, the user's role there and what that role allows (the nav), and
   * whether the account refuses them for want of two-factor sign-in (the dashboard then sends them to /security) or
   * is suspended (the dashboard then shows the way out: the account switcher and signing out).
   */
  current: sessionProcedure
    .meta({ permission: 'user' })
    .input(noInput)
    .output(
      accountSchema.extend({
        permissions: z.array(z.enum(PERMISSION_NAMES)),
        two_factor_required: z.boolean(),
        suspended: z.boolean(),
      }),
    )
    .query(({ ctx }) => {
      const { id, name, role, require2fa, suspendedAt } = ctx.account;
      const permissions = PERMISSION_NAMES.filter((permission) => roleAllows(role, permission));
      const suspended = suspendedAt !== null;
      return { id, name, role, permissions, two_factor_required: require2fa && !ctx.user.twoFactor, suspended };
    }),

  switchAccount: sessionProcedure
    .meta({
      permission: 'user',
      changesSession: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/accounts/current',
        tags: ['Teams'],
        summary: 'Switch the session to another of the user’s accounts',
        description:
          'Makes `account_id` the account this identity token acts on from the next request on (the dashboard’s account switcher). An account the user is not a member of: 404.',
      },
    })
    .input(z.object({ account_id: z.string().min(1).max(64) }))
    .output(accountSchema)
    .mutation(({ ctx, input }) =>
      switchAccount(ctx.services.db, {
        sessionHash: sessionIdHash(ctx.session.id),
        userId: ctx.user.id,
        accountId: input.account_id,
      }),
    ),

  members: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/members',
        tags: ['Teams'],
        summary: 'The members of the current account and its open invites',
        description:
          'Members with their roles, oldest first, and the invites not yet accepted, revoked or expired, newest first.',
      },
    })
    .input(noInput)
    .output(z.object({ members: z.array(listedMemberSchema), invites: z.array(inviteSchema) }))
    .query(({ ctx }) => listMembers(ctx.services.db, { accountId: ctx.account.id, now: ctx.services.clock.now() })),

  invite: sessionProcedure
    .meta({
      permission: 'manage_members',
      openapi: {
        method: 'POST',
        path: '/api/v1/members/invites',
        tags: ['Teams'],
        summary: 'Invite someone by e-mail',
        description: `E-mails a link valid for 7 days that works once; a new invite to the same address replaces the open one. Needs a confirmed e-mail address. ${ROLE_RULES}`,
      },
      errors: ['email_unverified', 'conflict'],
      successStatus: 201,
    })
    .input(z.object({ email: z.email().max(254), role: roleSchema }))
    .output(inviteSchema)
    .mutation(async ({ ctx, input }) => {
      const { db, clock, config } = ctx.services;
      const invite = await inviteMember(db, {
        accountId: ctx.account.id,
        actor: { userId: ctx.user.id, email: ctx.user.email, role: ctx.account.role, origin: ctx.audit },
        email: input.email,
        role: input.role,
        links: { publicBaseUrl: config.publicBaseUrl },
        now: clock.now(),
      });
      ctx.response.setStatus(201);
      return invite;
    }),

  acceptInvite: sessionProcedure
    .meta({
      permission: 'user',
      openapi: {
        method: 'POST',
        path: '/api/v1/members/invites/accept',
        tags: ['Teams'],
        summary: 'Join an account with the token of an e-mailed invite',
        description:
          'The signed-in user’s e-mail must be the invited address (otherwise 403). The invite works once; an unknown, used, revoked or expired one is 404. The session stays on its current account: switch with POST /api/v1/accounts/current.',
      },
      errors: ['conflict'],
    })
    .input(z.object({ token: z.string().min(1).max(256) }))
    .output(z.object({ account_id: z.string(), role: roleSchema }))
    .mutation(({ ctx, input }) =>
      acceptInvite(ctx.services.db, {
        token: input.token,
        user: { id: ctx.user.id, email: ctx.user.email },
        origin: ctx.audit,
        now: ctx.services.clock.now(),
      }),
    ),

  revokeInvite: sessionProcedure
    .meta({
      permission: 'manage_members',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/members/invites/{id}',
        tags: ['Teams'],
        summary: 'Revoke an open invite',
        description:
          'Its link stops working at once; revoking a revoked invite answers the same. An accepted one: 409.',
      },
      errors: ['conflict'],
    })
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(({ ctx, input }) =>
      revokeInvite(ctx.services.db, {
        accountId: ctx.account.id,
        inviteId: input.id,
        actor: { userId: ctx.user.id, role: ctx.account.role, origin: ctx.audit },
        now: ctx.services.clock.now(),
      }),
    ),

  changeRole: sessionProcedure
    .meta({
      permission: 'manage_members',
      changesSession: true,
      openapi: {
        method: 'PATCH',
        path: '/api/v1/members/{user_id}',
        tags: ['Teams'],
        summary: 'Change a member’s role',
        description: `The last owner cannot be demoted (409). ${ROLE_RULES}`,
      },
      errors: ['conflict'],
    })
    .input(z.object({ user_id: userIdParam, role: roleSchema }))
    .output(memberSchema)
    .mutation(({ ctx, input }) =>
      changeMemberRole(ctx.services.db, {
        accountId: ctx.account.id,
        userId: input.user_id,
        role: input.role,
        actor: { userId: ctx.user.id, role: ctx.account.role, origin: ctx.audit },
        now: ctx.services.clock.now(),
      }),
    ),

  removeMember: sessionProcedure
    .meta({
      permission: 'manage_members',
      changesSession: true,
      openapi: {
        method: 'DELETE',
        path: '/api/v1/members/{user_id}',
        tags: ['Teams'],
        summary: 'Remove a member',
        description: `Their sessions lose the account at once (they go back to their personal account). With \`revoke_keys=true\` the account's API keys they created are revoked too (each audited as \`key.revoked\`); otherwise those keys keep working (GET /api/v1/members says how many, \`working_keys\`). The last owner cannot be removed, nor anyone from their own personal account (409). ${ROLE_RULES}`,
      },
      errors: ['conflict'],
    })
    .input(
      z.object({
        user_id: userIdParam,
        revoke_keys: z
          .enum(['true', 'false'])
          .optional()
          .meta({ description: 'Also revoke the API keys of this account the member created (default false)' }),
      }),
    )
    .output(
      z.object({
        removed: z.literal(true),
        keys_revoked: z.number().int().meta({ description: 'How many of their keys were revoked with them' }),
      }),
    )
    .mutation(({ ctx, input }) =>
      removeMember(ctx.services.db, {
        accountId: ctx.account.id,
        userId: input.user_id,
        revokeKeys: input.revoke_keys === 'true',
        actor: { userId: ctx.user.id, role: ctx.account.role, origin: ctx.audit },
        now: ctx.services.clock.now(),
      }),
    ),
});

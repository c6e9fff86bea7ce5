import { authenticator } from 'otplib';
import { beforeAll, expect, it } from 'vitest';
import { appRouter } from '../../server/root.js';
import { PERMISSIONS, type Permission, ROLES } from '../../server/domain/teams/roles.js';
import type { Meta } from '../../server/trpc/index.js';
import { createKey, type SignedUp, signUp } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, tokenFromOutbox } from '../fixtures/mail.js';
import { useTestServer } from '../helpers/server.js';

type Role = (typeof ROLES)[number];

interface TokenProcedure {
  path: string;
  type: 'query' | 'mutation';
  permission: Permission | undefined;
}

/** Every Token procedure of the app router, read from the router itself: a new one is in the matrix at once. */
const TOKEN_PROCEDURES: TokenProcedure[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: Meta } }>,
)
  .filter(([path, procedure]) => procedure._def.meta?.auth === 'session' && !path.startsWith('admin.'))
  .map(([path, procedure]) => ({
    path,
    type: procedure._def.type as TokenProcedure['type'],
    permission: procedure._def.meta?.permission,
  }));

/**
 * What each role may do, as the role table says it. Every procedure is called by every role with no input:
 * a role the procedure's permission lets through gets past the role check (anything but 403 `forbidden`); any
 * other gets 403 `forbidden` with `required_roles` before the input is even read, so nothing changes.
 */
describeEachDatabase('Roles: every Token procedure × every role', (dialect) => {
  const server = useTestServer(dialect);
  let owner: SignedUp;
  const members = new Map<Role, SignedUp>();
  beforeAll(async () => {
    owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    await createKey(server.api, owner.token);
    members.set('owner', owner);
    for (const role of ROLES.filter((r) => r !== 'owner')) {
      const member = await signUp(server.api);
      const invited = await server.api.post('/api/v1/members/invites', {
        token: owner.token,
        json: { email: member.email, role },
      });
      expect(invited.status).toBe(201);
      const token = await tokenFromOutbox(server, member.email, 'invite');
      const accepted = await server.api.post('/api/v1/members/invites/accept', {
        token: member.token,
        json: { token },
      });
      expect(accepted.status).toBe(200);
      members.set(role, member);
    }
  });

  it('finds the Token procedures, and each declares a permission', () => {
    expect(TOKEN_PROCEDURES.length).toBeGreaterThan(50);
    expect(TOKEN_PROCEDURES.filter((p) => p.permission === undefined).map((p) => p.path)).toEqual([]);
  });

  /** One call through /trpc, acting on the owner's account via the Roomstage-Account header. */
  async function call(role: Role, procedure: TokenProcedure) {
    const member = members.get(role)!;
    const options = { token: member.token, headers: { 'roomstage-account': owner.userId } };
    const response =
      procedure.type === 'query'
        ? await server.api.get(`/trpc/${procedure.path}`, options)
        : await server.api.post(`/trpc/${procedure.path}`, { ...options, json: {} });
    const body = response.body?.error?.data?.contract?.body as { code: string; required_roles?: string[] } | undefined;
    return { status: response.status, body };
  }

  for (const role of ROLES) {
    it(`lets ${role} call exactly what its role allows`, async () => {
      for (const procedure of TOKEN_PROCEDURES) {
        const permission = procedure.permission!;
        // The user's own things (sign-out, password, two-factor): every role; their mutations are not fired here.
        if (permission === 'user' && procedure.type === 'mutation') continue;
        const allowed = (PERMISSIONS[permission] as readonly Role[]).includes(role);
        const { status, body } = await call(role, procedure);
        const where = `${role} → ${procedure.path} (${permission})`;
        if (allowed) {
          expect(body?.code === 'forbidden' ? where : 'allowed').toBe('allowed');
          expect(status === 401 || status === 404 ? where : 'ok').toBe('ok');
        } else {
          expect({ where, status, code: body?.code }).toEqual({ where, status: 403, code: 'forbidden' });
          expect(body?.required_roles).toEqual([...PERMISSIONS[permission]]);
        }
      }
    });
  }

  it('refuses every procedure but the user’s own with two_factor_required on an account that requires it', async () => {
    const strict = await signUp(server.api);
    const setup = await server.api.post('/api/v1/me/2fa/setup', { token: strict.token });
    const code = authenticator.clone({ epoch: server.clock.now() }).generate(setup.body.secret);
    expect((await server.api.post('/api/v1/me/2fa/enable', { token: strict.token, json: { code } })).status).toBe(200);
    const required = await server.api.request('PUT', '/api/v1/settings/security', {
      token: strict.token,
      json: { require_2fa: true },
    });
    expect(required.body).toEqual({ require_2fa: true });
    // The admin of the other account joins this one as an admin too, without two-factor sign-in.
    const admin = members.get('admin')!;
    await confirmEmail(server, strict.email);
    const invited = await server.api.post('/api/v1/members/invites', {
      token: strict.token,
      json: { email: admin.email, role: 'admin' },
    });
    expect(invited.status).toBe(201);
    const token = await tokenFromOutbox(server, admin.email, 'invite');
    const accepted = await server.api.post('/api/v1/members/invites/accept', { token: admin.token, json: { token } });
    expect(accepted.status).toBe(200);
    for (const procedure of TOKEN_PROCEDURES) {
      const own = procedure.permission === 'user';
      // The user's own mutations (sign-out, password, two-factor) are not fired here.
      if (own && procedure.type === 'mutation') continue;
      const options = { token: admin.token, headers: { 'roomstage-account': strict.userId } };
      const response =
        procedure.type === 'query'
          ? await server.api.get(`/trpc/${procedure.path}`, options)
          : await server.api.post(`/trpc/${procedure.path}`, { ...options, json: {} });
      const code = response.body?.error?.data?.contract?.body?.code;
      const where = `${procedure.path} (${procedure.permission})`;
      if (own) expect({ where, code }).not.toEqual({ where, code: 'two_factor_required' });
      else
        expect({ where, status: response.status, code }).toEqual({ where, status: 403, code: 'two_factor_required' });
    }
  });

  it('says so in the REST body: 403 forbidden with required_roles, nothing created', async () => {
    const viewer = members.get('viewer')!;
    const keysBefore = (await server.api.get('/api/v1/keys', { token: owner.token })).body.keys.length;
    const refused = await server.api.post('/api/v1/keys', {
      token: viewer.token,
      headers: { 'roomstage-account': owner.userId },
      json: { name: 'Not allowed' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'forbidden',
      code: 'forbidden',
      message: expect.stringContaining('viewer'),
      required_roles: ['owner', 'admin', 'developer'],
    });
    const keys = await server.api.get('/api/v1/keys', { token: owner.token });
    expect(keys.body.keys).toHaveLength(keysBefore);

    const agent = members.get('agent')!;
    const audit = await server.api.get('/api/v1/audit-log', {
      token: agent.token,
      headers: { 'roomstage-account': owner.userId },
    });
    expect(audit.status).toBe(403);
    expect(audit.body.required_roles).toEqual(['owner', 'admin']);
  });
});

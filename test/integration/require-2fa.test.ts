import { authenticator } from 'otplib';
import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { createKey, type SignedUp, signUp, TEST_PASSWORD } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, tokenFromOutbox } from '../fixtures/mail.js';
import { useTestServer } from '../helpers/server.js';

type Role = 'admin' | 'developer' | 'billing' | 'agent' | 'viewer';

describeEachDatabase('An account that requires two-factor sign-in', (dialect) => {
  const server = useTestServer(dialect);

  const inAccount = (accountId: string) => ({ 'roomstage-account': accountId });
  const codeAt = (secret: string) => authenticator.clone({ epoch: server.clock.now() }).generate(secret);
  const securitySettings = (token: string, headers?: Record<string, string>) =>
    server.api.get('/api/v1/settings/security', { token, headers });
  const requireTwoFactor = (token: string, on: boolean, headers?: Record<string, string>) =>
    server.api.request('PUT', '/api/v1/settings/security', { token, json: { require_2fa: on }, headers });

  /** Turns two-factor sign-in on for whoever `token` signs in, the way a person does: setup, then a first code. */
  async function turnOnTwoFactor(token: string) {
    const setup = await server.api.post('/api/v1/me/2fa/setup', { token });
    expect(setup.status).toBe(200);
    const enabled = await server.api.post('/api/v1/me/2fa/enable', {
      token,
      json: { code: codeAt(setup.body.secret) },
    });
    expect(enabled.status).toBe(200);
    return enabled.body.recovery_codes as string[];
  }

  /** An owner with a confirmed address (inviting needs one). */
  async function owner(): Promise<SignedUp> {
    const user = await signUp(server.api);
    await confirmEmail(server, user.email);
    return user;
  }

  /** A new user who joins `boss`'s personal account with `role` through an e-mailed invite. */
  async function join(boss: SignedUp, role: Role): Promise<SignedUp> {
    const member = await signUp(server.api);
    const invited = await server.api.post('/api/v1/members/invites', {
      token: boss.token,
      json: { email: member.email, role },
    });
    expect(invited.status).toBe(201);
    const token = await tokenFromOutbox(server, member.email, 'invite');
    const accepted = await server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token } });
    expect(accepted.status).toBe(200);
    return member;
  }

  it('is off by default, and turning it on without two-factor sign-in of one’s own is 409 conflict', async () => {
    const boss = await owner();
    expect((await securitySettings(boss.token)).body).toEqual({ require_2fa: false });
    const refused = await requireTwoFactor(boss.token, true);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: 'conflict',
      code: 'conflict',
      message: expect.stringContaining('Turn on two-factor sign-in for yourself first'),
    });
    expect((await securitySettings(boss.token)).body).toEqual({ require_2fa: false });
    // Nothing changed, so nothing is recorded.
    const audit = await server.api.get('/api/v1/audit-log?action=settings.updated', { token: boss.token });
    expect(audit.body.entries).toEqual([]);
    // Turning it off never needs it.
    expect((await requireTwoFactor(boss.token, false)).body).toEqual({ require_2fa: false });
  });

  it('lets only owners and admins change it (403 forbidden with required_roles), and every reading role read it', async () => {
    const boss = await owner();
    await turnOnTwoFactor(boss.token);
    for (const role of ['developer', 'billing', 'agent', 'viewer'] as const) {
      const member = await join(boss, role);
      await turnOnTwoFactor(member.token);
      const refused = await requireTwoFactor(member.token, true, inAccount(boss.userId));
      expect({ role, status: refused.status }).toEqual({ role, status: 403 });
      expect(refused.body).toEqual({
        error: 'forbidden',
        code: 'forbidden',
        message: expect.stringContaining(`(${role})`),
        required_roles: ['owner', 'admin'],
      });
      const read = await securitySettings(member.token, inAccount(boss.userId));
      expect({ role, status: read.status }).toEqual({ role, status: role === 'agent' ? 403 : 200 });
    }
    expect((await securitySettings(boss.token)).body).toEqual({ require_2fa: false });

    const admin = await join(boss, 'admin');
    await turnOnTwoFactor(admin.token);
    const byAdmin = await requireTwoFactor(admin.token, true, inAccount(boss.userId));
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toEqual({ require_2fa: true });
  });

  describe('once it is on', () => {
    let boss: SignedUp;
    let member: SignedUp;
    let bossKey: string;
    beforeAll(async () => {
      boss = await owner();
      bossKey = (await createKey(server.api, boss.token, { name: 'Server key' })).key;
      member = await join(boss, 'developer');
      await turnOnTwoFactor(boss.token);
      const turnedOn = await requireTwoFactor(boss.token, true);
      expect(turnedOn.status).toBe(200);
      expect(turnedOn.body).toEqual({ require_2fa: true });
    });

    it('records the change in the account’s audit log as settings.updated, by whom', async () => {
      const audit = await server.api.get('/api/v1/audit-log?action=settings.updated', { token: boss.token });
      expect(audit.body.entries).toEqual([
        expect.objectContaining({
          action: 'settings.updated',
          actor: { type: 'user', id: boss.userId, label: boss.email },
          target: 'security',
          details: { require_2fa: true },
        }),
      ]);
    });

    it('refuses a member without two-factor sign-in with 403 two_factor_required, by header or by switched session', async () => {
      const viaHeader = await server.api.get('/api/v1/keys', { token: member.token, headers: inAccount(boss.userId) });
      expect(viaHeader.status).toBe(403);
      expect(viaHeader.body).toEqual({
        error: 'two factor required',
        code: 'two_factor_required',
        message: expect.stringContaining('Turn on two-factor sign-in for yourself'),
      });
      expect(viaHeader.body.message).toContain(boss.email);

      const switched = await server.api.post('/api/v1/accounts/current', {
        token: member.token,
        json: { account_id: boss.userId },
      });
      expect(switched.status).toBe(200);
      for (const path of ['/api/v1/keys', '/api/v1/members', '/api/v1/settings/security', '/api/v1/usage']) {
        const refused = await server.api.get(path, { token: member.token });
        expect({ path, status: refused.status, code: refused.body.code }).toEqual({
          path,
          status: 403,
          code: 'two_factor_required',
        });
      }
      // A change is refused the same way, before anything is written.
      const keyRefused = await server.api.post('/api/v1/keys', { token: member.token, json: { name: 'Nope' } });
      expect(keyRefused.status).toBe(403);
      expect(keyRefused.body.code).toBe('two_factor_required');
      // Through /trpc too (the dashboard's way in): the same check of the same builder.
      const trpc = await server.api.get('/trpc/keys.list', { token: member.token });
      expect(trpc.status).toBe(403);
      expect(trpc.body.error.data.contract.body.code).toBe('two_factor_required');
    });

    it('still lets that member reach their own things: profile, sessions, accounts, switching away and their own account', async () => {
      const other = await join(boss, 'viewer');
      await server.api.post('/api/v1/accounts/current', { token: other.token, json: { account_id: boss.userId } });
      expect((await server.api.get('/api/v1/me', { token: other.token })).status).toBe(200);
      expect((await server.api.get('/api/v1/me/2fa', { token: other.token })).body.enabled).toBe(false);
      expect((await server.api.get('/api/v1/me/sessions', { token: other.token })).status).toBe(200);
      const accounts = await server.api.get('/api/v1/accounts', { token: other.token });
      expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual([other.userId, boss.userId]);
      // Their personal account does not require it.
      const back = await server.api.post('/api/v1/accounts/current', {
        token: other.token,
        json: { account_id: other.userId },
      });
      expect(back.status).toBe(200);
      expect((await server.api.get('/api/v1/keys', { token: other.token })).status).toBe(200);
      const signedOut = await server.api.post('/api/v1/auth/logout', { token: other.token });
      expect(signedOut.status).toBe(200);
    });

    it('lets the member in once they set up two-factor sign-in, and out again if they turn it off', async () => {
      await server.api.post('/api/v1/accounts/current', { token: member.token, json: { account_id: boss.userId } });
      expect((await server.api.get('/api/v1/keys', { token: member.token })).status).toBe(403);
      const recoveryCodes = await turnOnTwoFactor(member.token);
      const keys = await server.api.get('/api/v1/keys', { token: member.token });
      expect(keys.status).toBe(200);
      expect(keys.body.keys.map((k: { name: string }) => k.name)).toEqual(['Server key']);
      const created = await server.api.post('/api/v1/keys', { token: member.token, json: { name: 'Member key' } });
      expect(created.status).toBe(201);

      const off = await server.api.post('/api/v1/me/2fa/disable', {
        token: member.token,
        json: { password: TEST_PASSWORD, recovery_code: recoveryCodes[0] },
      });
      expect(off.status).toBe(200);
      expect((await server.api.get('/api/v1/keys', { token: member.token })).body.code).toBe('two_factor_required');
    });

    it('does not affect API keys: they are machine credentials and sign nobody in', async () => {
      const credits = await server.api.get('/api/v1/credits', { token: bossKey });
      expect(credits.status).toBe(200);
      expect(credits.body).toMatchObject({ credits: expect.any(Number) });
    });

    it('sends a member refused for this reason from any dashboard page to the Security page, which says why', async () => {
      const viewer = await join(boss, 'viewer');
      await server.api.post('/api/v1/accounts/current', { token: viewer.token, json: { account_id: boss.userId } });
      const cookie = { cookie: `${SESSION_COOKIE_NAME}=${viewer.token}` };
      for (const page of ['/overview', '/keys', '/team', '/billing']) {
        const refused = await server.api.get(page, { headers: cookie });
        expect({ page, status: refused.status, location: refused.headers.get('location') }).toEqual({
          page,
          status: 302,
          location: '/security?two_factor=required',
        });
      }
      const security = await server.api.get('/security?two_factor=required', { headers: cookie });
      expect(security.status).toBe(200);
      expect(security.text).toContain('requires two-factor sign-in');
    });

    it('lets every member in again once it is turned off', async () => {
      const newcomer = await join(boss, 'viewer');
      const headers = inAccount(boss.userId);
      expect((await server.api.get('/api/v1/members', { token: newcomer.token, headers })).status).toBe(403);
      const off = await requireTwoFactor(boss.token, false);
      expect(off.body).toEqual({ require_2fa: false });
      expect((await server.api.get('/api/v1/members', { token: newcomer.token, headers })).status).toBe(200);
      const audit = await server.api.get('/api/v1/audit-log?action=settings.updated', { token: boss.token });
      expect(audit.body.entries.map((e: { details: unknown }) => e.details)).toEqual([
        { require_2fa: false },
        { require_2fa: true },
      ]);
    });
  });
});

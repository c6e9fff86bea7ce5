import { request as httpRequest } from 'node:http';
import { authenticator } from 'otplib';
import { describe, expect, it } from 'vitest';
import { createKey, type SignedUp, signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, tokenFromOutbox } from '../fixtures/mail.js';
import { operatorToken } from '../helpers/operators.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR = uniqueEmail('trust-operator');
const SQUATTED = uniqueEmail('squatted-operator');
const LISTED = uniqueEmail('listed-operator');

/**
 * Each test is an attack an outside audit ran as a hostile user, with what it got before the fix in its comment;
 * each asserts what the attacker gets now.
 */
describeEachDatabase('Trust: the audit’s attacks on secrets, suspension, operators, invites and uploads', (dialect) => {
  const server = useTestServer(dialect, { env: { OPERATOR_EMAILS: `${OPERATOR},${SQUATTED},${LISTED}` } });

  /** An owner with a confirmed address and one member per role given, each invited and joined. */
  async function team(roles: string[]) {
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const members = new Map<string, SignedUp>();
    for (const role of roles) {
      const member = await signUp(server.api);
      await join(owner, member, role);
      members.set(role, member);
    }
    return { owner, members };
  }

  async function join(owner: SignedUp, member: SignedUp, role: string) {
    const invited = await server.api.post('/api/v1/members/invites', {
      token: owner.token,
      json: { email: member.email, role },
    });
    expect(invited.status).toBe(201);
    const token = await tokenFromOutbox(server, member.email, 'invite');
    const accepted = await server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token } });
    expect(accepted.status).toBe(200);
  }

  async function turnOnTwoFactor(token: string) {
    const { secret } = (await server.api.post('/api/v1/me/2fa/setup', { token })).body;
    const code = authenticator.clone({ epoch: server.clock.now() }).generate(secret);
    expect((await server.api.post('/api/v1/me/2fa/enable', { token, json: { code } })).status).toBe(200);
  }

  it('a viewer, a billing member and an agent cannot read the webhook signing secret (REST and tRPC); owner, admin and developer can', async () => {
    // Before: GET /api/v1/keys/{id}/webhook and webhooks.get returned `secret` to every role.
    const { owner, members } = await team(['admin', 'developer', 'billing', 'agent', 'viewer']);
    const key = await createKey(server.api, owner.token);
    const put = await server.api.put(`/api/v1/keys/${key.id}/webhook`, {
      token: owner.token,
      json: { url: 'http://127.0.0.1:9/hook', enabled: true },
    });
    const secret = put.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const asMember = (role: string) => ({
      token: members.get(role)!.token,
      headers: { 'roomstage-account': owner.userId },
    });
    for (const role of ['admin', 'developer']) {
      const rest = await server.api.get(`/api/v1/keys/${key.id}/webhook`, asMember(role));
      expect({ role, secret: rest.body.secret }).toEqual({ role, secret });
    }
    for (const role of ['billing', 'viewer']) {
      const rest = await server.api.get(`/api/v1/keys/${key.id}/webhook`, asMember(role));
      expect(rest.status).toBe(200);
      expect({ role, url: rest.body.url, secret: rest.body.secret }).toEqual({
        role,
        url: 'http://127.0.0.1:9/hook',
        secret: null,
      });
      const input = encodeURIComponent(JSON.stringify({ id: key.id }));
      const rpc = await server.api.get(`/trpc/webhooks.get?input=${input}`, asMember(role));
      expect(rpc.status).toBe(200);
      expect({ role, secret: rpc.body.result.data.secret }).toEqual({ role, secret: null });
      expect(JSON.stringify(rpc.body)).not.toContain(secret);
    }
    // The agent reads no keys at all.
    const agent = await server.api.get(`/api/v1/keys/${key.id}/webhook`, asMember('agent'));
    expect(agent.status).toBe(403);
    expect(agent.text).not.toContain(secret);
  });

  describe('a member of a suspended account', () => {
    it('can switch back to their own account and sign out, and the session ends; the account’s data stays refused', async () => {
      // Before: 403 account_suspended on switching and on signing out, and the session stayed alive.
      const { owner, members } = await team(['developer']);
      const member = members.get('developer')!;
      const switched = await server.api.post('/api/v1/accounts/current', {
        token: member.token,
        json: { account_id: owner.userId },
      });
      expect(switched.status).toBe(200);
      const operator = await operatorToken(server, OPERATOR);
      const suspended = await server.api.post(`/api/v1/admin/accounts/${owner.userId}/suspend`, {
        token: operator,
        json: { reason: 'chargebacks' },
      });
      expect(suspended.body).toEqual({ status: 'suspended' });

      const refused = await server.api.get('/api/v1/keys', { token: member.token });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'account_suspended' });
      // Their own things answer: who they are, their accounts, switching away.
      expect((await server.api.get('/api/v1/me', { token: member.token })).status).toBe(200);
      const accounts = await server.api.get('/api/v1/accounts', { token: member.token });
      expect(accounts.body.accounts.map((a: { id: string }) => a.id).sort()).toEqual(
        [member.userId, owner.userId].sort(),
      );
      const back = await server.api.post('/api/v1/accounts/current', {
        token: member.token,
        json: { account_id: member.userId },
      });
      expect(back.status).toBe(200);
      expect((await server.api.get('/api/v1/keys', { token: member.token })).status).toBe(200);

      // Back on the suspended account, signing out still works and ends the session.
      await server.api.post('/api/v1/accounts/current', { token: member.token, json: { account_id: owner.userId } });
      const out = await server.api.post('/api/v1/auth/logout', { token: member.token });
      expect(out.status).toBe(200);
      expect((await server.api.get('/api/v1/me', { token: member.token })).status).toBe(401);
      // The owner's own session on the suspended account can sign out too.
      expect((await server.api.post('/api/v1/auth/logout', { token: owner.token })).status).toBe(200);
      expect((await server.api.get('/api/v1/me', { token: owner.token })).status).toBe(401);
    });

    it('an operator cannot suspend an account they are a member of (409), their own included, and keeps the console', async () => {
      // Before: an operator who suspended their own account lost the console.
      const operator = await operatorToken(server, OPERATOR);
      const me = (await server.api.get('/api/v1/me', { token: operator })).body;
      expect(me.operator).toBe(true);
      const own = await server.api.post(`/api/v1/admin/accounts/${me.id}/suspend`, {
        token: operator,
        json: { reason: 'testing myself' },
      });
      expect({ status: own.status, code: own.body.code }).toEqual({ status: 409, code: 'conflict' });
      // An account the operator joined as a member.
      const owner = await signUp(server.api);
      await confirmEmail(server, owner.email);
      await server.api.post('/api/v1/members/invites', {
        token: owner.token,
        json: { email: OPERATOR, role: 'viewer' },
      });
      const inviteToken = await tokenFromOutbox(server, OPERATOR, 'invite');
      await server.api.post('/api/v1/members/invites/accept', { token: operator, json: { token: inviteToken } });
      const joined = await server.api.post(`/api/v1/admin/accounts/${owner.userId}/suspend`, {
        token: operator,
        json: { reason: 'conflict of interest' },
      });
      expect(joined.status).toBe(409);
      const search = await server.api.get(`/api/v1/admin/search?q=${encodeURIComponent(owner.email)}`, {
        token: operator,
      });
      expect(search.body.accounts[0].status).toBe('active');
      const audit = await server.services.db
        .selectFrom('audit_log')
        .select('action')
        .where('account_id', 'in', [me.id, owner.userId])
        .where('action', '=', 'operator.account_suspended')
        .execute();
      expect(audit).toEqual([]);
    });
  });

  it('whoever registers an operator’s address first never becomes an operator when its owner opens the link', async () => {
    // Before: the link confirmed without sign-in, and the squatter's session became an operator's at once.
    const squatter = await server.api.post('/api/v1/auth/signup', {
      json: { email: SQUATTED, password: 'the squatter password' },
    });
    expect(squatter.status).toBe(201);
    const link = await tokenFromOutbox(server, SQUATTED, 'verify_email');
    // The real owner of the address opens the link, signed out (or signed in as someone else), without the password.
    const signedOut = await server.api.post('/api/v1/auth/verify-email', { json: { token: link } });
    expect({ status: signedOut.status, code: signedOut.body.code }).toEqual({
      status: 401,
      code: 'authentication_required',
    });
    const someoneElse = await signUp(server.api);
    const asOther = await server.api.post('/api/v1/auth/verify-email', {
      token: someoneElse.token,
      json: { token: link },
    });
    expect(asOther.status).toBe(401);
    const guessed = await server.api.post('/api/v1/auth/verify-email', {
      json: { token: link, password: TEST_PASSWORD },
    });
    expect(guessed.status).toBe(401);
    const security = await server.services.db
      .selectFrom('user_security')
      .select('email_verified_at')
      .where('user_id', '=', squatter.body.user.id)
      .executeTakeFirstOrThrow();
    expect(security.email_verified_at).toBeNull();
    for (const token of [squatter.body.token as string]) {
      expect((await server.api.get('/api/v1/me', { token })).body.operator).toBe(false);
      expect((await server.api.get('/api/v1/admin/search?q=x', { token })).status).toBe(404);
    }
    // The link was not spent by the refusals: the holder of the password can still use it.
    const holder = await server.api.post('/api/v1/auth/verify-email', {
      json: { token: link, password: 'the squatter password' },
    });
    expect(holder.body).toEqual({ email: SQUATTED, verified: true });
  });

  it('an operator-listed address confirmed by its holder gives operator access only once two-factor sign-in is on', async () => {
    const listed = await signUp(server.api, LISTED);
    // The holder confirms while signed in (the dashboard's one click).
    const link = await tokenFromOutbox(server, LISTED, 'verify_email');
    const confirmed = await server.api.post('/api/v1/auth/verify-email', {
      token: listed.token,
      json: { token: link },
    });
    expect(confirmed.body).toEqual({ email: LISTED, verified: true });
    expect((await server.api.get('/api/v1/me', { token: listed.token })).body.operator).toBe(false);
    expect((await server.api.get('/api/v1/admin/search?q=x', { token: listed.token })).status).toBe(404);
    await turnOnTwoFactor(listed.token);
    expect((await server.api.get('/api/v1/me', { token: listed.token })).body.operator).toBe(true);
    expect((await server.api.get('/api/v1/admin/search?q=x', { token: listed.token })).status).toBe(200);
  });

  it('an admin cannot cancel an owner’s invite by inviting the same address again with a lower role', async () => {
    // Before: DELETE of the invite was refused, but a new invite with role viewer replaced (revoked) it.
    const { owner, members } = await team(['admin']);
    const admin = members.get('admin')!;
    await confirmEmail(server, admin.email);
    const invitee = uniqueEmail('future-owner');
    const invited = await server.api.post('/api/v1/members/invites', {
      token: owner.token,
      json: { email: invitee, role: 'owner' },
    });
    expect(invited.status).toBe(201);
    const asAdmin = { token: admin.token, headers: { 'roomstage-account': owner.userId } };
    const revoke = await server.api.delete(`/api/v1/members/invites/${invited.body.id}`, asAdmin);
    expect(revoke.status).toBe(403);
    const replace = await server.api.post('/api/v1/members/invites', {
      ...asAdmin,
      json: { email: invitee, role: 'viewer' },
    });
    expect({ status: replace.status, code: replace.body.code }).toEqual({ status: 403, code: 'forbidden' });
    expect(replace.body.required_roles).toEqual(['owner']);
    const { invites } = (await server.api.get('/api/v1/members', { token: owner.token })).body;
    expect(invites).toEqual([expect.objectContaining({ id: invited.body.id, email: invitee, role: 'owner' })]);
    // An admin still replaces an invite they could revoke.
    const other = uniqueEmail('future-viewer');
    await server.api.post('/api/v1/members/invites', { ...asAdmin, json: { email: other, role: 'developer' } });
    const replaced = await server.api.post('/api/v1/members/invites', {
      ...asAdmin,
      json: { email: other, role: 'viewer' },
    });
    expect(replaced.status).toBe(201);
  });

  it('the key list names who created each key, and removing a member can revoke the keys they made (audited)', async () => {
    // Before: the key list did not say who created a key, and a removed member's keys kept working without a word.
    const { owner, members } = await team(['developer']);
    const developer = members.get('developer')!;
    const asDeveloper = { token: developer.token, headers: { 'roomstage-account': owner.userId } };
    const made = (await server.api.post('/api/v1/keys', { ...asDeveloper, json: { name: 'Dev key' } })).body;
    const ownKey = await createKey(server.api, owner.token, { name: 'Owner key' });
    const { keys } = (await server.api.get('/api/v1/keys', { token: owner.token })).body;
    const byId = new Map(keys.map((key: { id: number }) => [key.id, key]));
    expect((byId.get(made.id) as any).created_by).toEqual({ user_id: developer.userId, email: developer.email });
    expect((byId.get(ownKey.id) as any).created_by).toEqual({ user_id: owner.userId, email: owner.email });
    const listed = (await server.api.get('/api/v1/members', { token: owner.token })).body.members;
    expect(listed.find((m: { user_id: string }) => m.user_id === developer.userId).working_keys).toBe(1);

    const removed = await server.api.delete(`/api/v1/members/${developer.userId}?revoke_keys=true`, {
      token: owner.token,
    });
    expect(removed.body).toEqual({ removed: true, keys_revoked: 1 });
    expect((await server.api.get('/api/v1/credits', { token: made.key })).status).toBe(401);
    expect((await server.api.get('/api/v1/credits', { token: ownKey.key })).status).toBe(200);
    const audit = (await server.api.get('/api/v1/audit-log?action=key.revoked', { token: owner.token })).body.entries;
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'key.revoked',
        target: `key_${made.id}`,
        actor: expect.objectContaining({ id: owner.userId }),
        details: expect.objectContaining({ reason: 'creator_removed' }),
      }),
    ]);
  });

  describe('a refused key’s big upload is answered before its body is read', () => {
    /**
     * Announces a 200 MB multipart body, sends 256 KB of it and waits: the answer must come while almost all of the
     * body is still unsent, so the server decided before reading it.
     */
    function uploadStart(key: string): Promise<{ status: number; body: any; sentBytes: number }> {
      const url = new URL('/api/v1/stage', server.url);
      return new Promise((resolve, reject) => {
        let sent = 0;
        const req = httpRequest(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(200 * 1024 * 1024),
          },
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            req.destroy();
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString()),
              sentBytes: sent,
            });
          });
        });
        req.on('error', (error) => (sent > 0 ? undefined : reject(error)));
        const chunk = Buffer.alloc(64 * 1024, 0x41);
        for (let i = 0; i < 4; i++) {
          req.write(chunk);
          sent += chunk.length;
        }
        setTimeout(() => reject(new Error('no answer while the body was unsent')), 10_000).unref();
      });
    }

    it('a key without the scope: 403 insufficient_scope; an expired key: 401; a suspended account’s key: 403', async () => {
      // Before: only the key's existence was checked first, and up to 210 MB were read before the other refusals.
      const owner = await signUp(server.api);
      const scoped = await createKey(server.api, owner.token, { scopes: ['credits:read'] });
      const noScope = await uploadStart(scoped.key);
      expect({ status: noScope.status, code: noScope.body.code }).toEqual({ status: 403, code: 'insufficient_scope' });
      expect(noScope.sentBytes).toBeLessThan(1024 * 1024);

      const expiring = await createKey(server.api, owner.token, {
        expires_at: new Date(server.clock.now() + 60_000).toISOString(),
      });
      server.clock.advance(120_000);
      const expired = await uploadStart(expiring.key);
      expect({ status: expired.status, code: expired.body.code }).toEqual({
        status: 401,
        code: 'authentication_required',
      });

      const victim = await signUp(server.api);
      const victimKey = await createKey(server.api, victim.token);
      const operator = await operatorToken(server, OPERATOR);
      await server.api.post(`/api/v1/admin/accounts/${victim.userId}/suspend`, {
        token: operator,
        json: { reason: 'abuse' },
      });
      const suspended = await uploadStart(victimKey.key);
      expect({ status: suspended.status, code: suspended.body.code }).toEqual({
        status: 403,
        code: 'account_suspended',
      });
      // The same key on a small request gets the same answer from the procedure.
      const small = await server.api.post('/api/v1/stage', { token: scoped.key, json: { image: 'x' } });
      expect(small.body.code).toBe('insufficient_scope');
    });
  });
});

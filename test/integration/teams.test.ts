import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import * as teamsMigration from '../../db/migrations/2026_11_27_1000_add_teams.js';
import { hashPassword } from '../../server/auth/passwords.js';
import { createKey, type SignedUp, signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { type TestDatabase, createTestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, outboxFor, startSmtpServer, tokenFromOutbox, tokenOfLink } from '../fixtures/mail.js';
import { useTestServer } from '../helpers/server.js';

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;
type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'agent' | 'viewer';

const DAY_MS = 86_400_000;

describeEachDatabase('Teams', (dialect) => {
  let smtp: Smtp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  const server = useTestServer(dialect, () => ({ env: { SMTP_URL: smtp.url } }));
  afterAll(async () => {
    await smtp?.close();
  });

  const inAccount = (accountId: string) => ({ 'roomstage-account': accountId });
  const patch = (path: string, token: string, json: unknown, headers?: Record<string, string>) =>
    server.api.request('PATCH', path, { token, json, headers });

  /** An owner with a confirmed address (inviting needs one). */
  async function owner(): Promise<SignedUp> {
    const user = await signUp(server.api);
    await confirmEmail(server, user.email);
    return user;
  }

  async function invite(by: SignedUp, email: string, role: Role, headers?: Record<string, string>) {
    return server.api.post('/api/v1/members/invites', { token: by.token, json: { email, role }, headers });
  }

  /** A new user who joins `by`'s personal account with `role` through an e-mailed invite. */
  async function join(by: SignedUp, role: Role): Promise<SignedUp> {
    const member = await signUp(server.api);
    const invited = await invite(by, member.email, role);
    expect(invited.status).toBe(201);
    const token = await tokenFromOutbox(server, member.email, 'invite');
    const accepted = await server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token } });
    expect(accepted.status).toBe(200);
    return member;
  }

  const members = async (token: string, headers?: Record<string, string>) =>
    (await server.api.get('/api/v1/members', { token, headers })).body as {
      members: Array<{ user_id: string; email: string; role: Role; joined_at: string }>;
      invites: Array<{ id: string; email: string; role: Role; expires_at: string }>;
    };

  const auditActions = async (token: string) =>
    ((await server.api.get('/api/v1/audit-log', { token })).body.entries as Array<{ action: string }>).map(
      (entry) => entry.action,
    );

  describe('accounts', () => {
    it('signs a new user up with a personal account they own, with the user’s id', async () => {
      const user = await signUp(server.api);
      const accounts = await server.api.get('/api/v1/accounts', { token: user.token });
      expect(accounts.status).toBe(200);
      expect(accounts.body).toEqual({ accounts: [{ id: user.userId, name: user.email, role: 'owner' }] });
      const list = await members(user.token);
      expect(list.members).toEqual([
        { user_id: user.userId, email: user.email, role: 'owner', joined_at: expect.any(String), working_keys: 0 },
      ]);
      expect(list.invites).toEqual([]);
    });

    it('switches the session to another of the user’s accounts, and refuses one they are not in with 404', async () => {
      const boss = await owner();
      const member = await join(boss, 'developer');
      const bossKey = await createKey(server.api, boss.token, { name: 'Boss key' });
      const switched = await server.api.post('/api/v1/accounts/current', {
        token: member.token,
        json: { account_id: boss.userId },
      });
      expect(switched.status).toBe(200);
      expect(switched.body).toEqual({ id: boss.userId, name: boss.email, role: 'developer' });
      const keys = await server.api.get('/api/v1/keys', { token: member.token });
      expect(keys.body.keys.map((k: { id: number }) => k.id)).toEqual([bossKey.id]);

      const stranger = await signUp(server.api);
      const refused = await server.api.post('/api/v1/accounts/current', {
        token: stranger.token,
        json: { account_id: boss.userId },
      });
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ code: 'not_found', error: 'not found' });
      const strangerKeys = await server.api.get('/api/v1/keys', { token: stranger.token });
      expect(strangerKeys.body.keys).toEqual([]);

      const back = await server.api.post('/api/v1/accounts/current', {
        token: member.token,
        json: { account_id: member.userId },
      });
      expect(back.body).toEqual({ id: member.userId, name: member.email, role: 'owner' });
      expect((await server.api.get('/api/v1/keys', { token: member.token })).body.keys).toEqual([]);
    });

    it('lands an agent of another account on the claims, not on an overview their role may not read', async () => {
      const boss = await owner();
      const agent = await join(boss, 'agent');
      const cookie = { cookie: `${SESSION_COOKIE_NAME}=${agent.token}` };
      expect((await server.api.get('/overview', { headers: cookie })).status).toBe(200);
      await server.api.post('/api/v1/accounts/current', { token: agent.token, json: { account_id: boss.userId } });
      const landing = await server.api.get('/overview', { headers: cookie });
      expect(landing.status).toBe(302);
      expect(landing.headers.get('location')).toBe('/claims');
      expect((await server.api.get('/claims', { headers: cookie })).status).toBe(200);
    });

    it('acts on the account the Roomstage-Account header names for one request: a member’s own, else 404', async () => {
      const boss = await owner();
      const member = await join(boss, 'viewer');
      const viaHeader = await members(member.token, inAccount(boss.userId));
      expect(viaHeader.members.map((m) => m.email).sort()).toEqual([boss.email, member.email].sort());
      // The session itself stays on the personal account.
      expect((await members(member.token)).members.map((m) => m.email)).toEqual([member.email]);

      const stranger = await signUp(server.api);
      for (const named of [boss.userId, 'acc_doesnotexist', 'garbage']) {
        const refused = await server.api.get('/api/v1/members', { token: stranger.token, headers: inAccount(named) });
        expect(refused.status).toBe(404);
        expect(refused.body.code).toBe('not_found');
      }
    });
  });

  describe('invites', () => {
    it('e-mails the invite through SMTP with the link in plain text and HTML, and the member joins with it', async () => {
      const boss = await owner();
      const newcomer = await signUp(server.api);
      const invited = await invite(boss, newcomer.email.toUpperCase(), 'billing');
      expect(invited.status).toBe(201);
      expect(invited.body).toEqual({
        id: expect.stringMatching(/^inv_/),
        email: newcomer.email,
        role: 'billing',
        expires_at: expect.any(String),
      });
      const expiresIn = Date.parse(invited.body.expires_at) - server.clock.now();
      expect(expiresIn).toBeGreaterThan(7 * DAY_MS - 60_000);
      expect(expiresIn).toBeLessThanOrEqual(7 * DAY_MS);

      const mail = await smtp.waitFor(newcomer.email, /invited you/);
      const link = /https?:\/\/\S+\/invite\?token=\S+/.exec(mail.parsed.text ?? '')?.[0];
      expect(link).toBeDefined();
      expect(mail.parsed.html).toContain('Accept the invitation');
      const token = tokenOfLink(link ?? '');
      // Only the token's hash is kept.
      const stored = await server.services.db
        .selectFrom('invites')
        .selectAll()
        .where('id', '=', invited.body.id)
        .execute();
      expect(JSON.stringify(stored)).not.toContain(token);

      expect((await members(boss.token)).invites).toEqual([invited.body]);
      const accepted = await server.api.post('/api/v1/members/invites/accept', {
        token: newcomer.token,
        json: { token },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({ account_id: boss.userId, role: 'billing' });
      const accounts = await server.api.get('/api/v1/accounts', { token: newcomer.token });
      expect(accounts.body.accounts).toEqual([
        { id: newcomer.userId, name: newcomer.email, role: 'owner' },
        { id: boss.userId, name: boss.email, role: 'billing' },
      ]);
      const list = await members(boss.token);
      expect(list.invites).toEqual([]);
      expect(list.members.find((m) => m.user_id === newcomer.userId)?.role).toBe('billing');
      expect(await auditActions(boss.token)).toEqual(expect.arrayContaining(['member.invited', 'member.joined']));

      const reused = await server.api.post('/api/v1/members/invites/accept', {
        token: newcomer.token,
        json: { token },
      });
      expect(reused.status).toBe(404);
      expect(reused.body.code).toBe('not_found');
    });

    it('refuses the invite to a user whose e-mail is not the invited one (403), and it still works for the right one', async () => {
      const boss = await owner();
      const intended = await signUp(server.api);
      const other = await signUp(server.api);
      await invite(boss, intended.email, 'agent');
      const token = await tokenFromOutbox(server, intended.email, 'invite');
      const wrong = await server.api.post('/api/v1/members/invites/accept', { token: other.token, json: { token } });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toMatchObject({ code: 'forbidden', error: 'forbidden' });
      expect((await server.api.get('/api/v1/accounts', { token: other.token })).body.accounts).toHaveLength(1);
      const right = await server.api.post('/api/v1/members/invites/accept', { token: intended.token, json: { token } });
      expect(right.status).toBe(200);
    });

    it('refuses an expired invite (after 7 days) and a revoked one with 404', async () => {
      const boss = await owner();
      const late = await signUp(server.api);
      const revokedUser = await signUp(server.api);
      await invite(boss, late.email, 'viewer');
      const lateToken = await tokenFromOutbox(server, late.email, 'invite');
      const revoked = await invite(boss, revokedUser.email, 'viewer');
      const revokedToken = await tokenFromOutbox(server, revokedUser.email, 'invite');

      const revoke = await server.api.delete(`/api/v1/members/invites/${revoked.body.id}`, { token: boss.token });
      expect(revoke.status).toBe(200);
      expect(revoke.body).toEqual({ id: revoked.body.id, revoked: true });
      expect(
        (await server.api.delete(`/api/v1/members/invites/${revoked.body.id}`, { token: boss.token })).status,
      ).toBe(200);
      const afterRevoke = await server.api.post('/api/v1/members/invites/accept', {
        token: revokedUser.token,
        json: { token: revokedToken },
      });
      expect(afterRevoke.status).toBe(404);
      expect((await members(boss.token)).invites.map((i) => i.email)).toEqual([late.email]);

      server.clock.advance(7 * DAY_MS + 1000);
      const expired = await server.api.post('/api/v1/members/invites/accept', {
        token: late.token,
        json: { token: lateToken },
      });
      expect(expired.status).toBe(404);
      expect(expired.body.code).toBe('not_found');
      expect((await members(boss.token)).invites).toEqual([]);
      expect((await members(boss.token)).members).toHaveLength(1);
    });

    it('lets one of two simultaneous accepts of the same invite through, once', async () => {
      const boss = await owner();
      const member = await signUp(server.api);
      await invite(boss, member.email, 'developer');
      const token = await tokenFromOutbox(server, member.email, 'invite');
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token } }),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 200)) expect([404, 409]).toContain(refused.status);
      expect((await members(boss.token)).members).toHaveLength(2);
      const joined = (await server.api.get('/api/v1/audit-log?action=member.joined', { token: boss.token })).body
        .entries;
      expect(joined).toHaveLength(1);
    });

    it('needs a confirmed e-mail to invite (403 email_unverified) and sends nothing then', async () => {
      const unconfirmed = await signUp(server.api);
      const target = uniqueEmail('target');
      const refused = await invite(unconfirmed, target, 'viewer');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'email_unverified' });
      expect(await outboxFor(server, target)).toEqual([]);
    });

    it('refuses bad input with 400 and a member invited again with 409, changing nothing', async () => {
      const boss = await owner();
      const member = await join(boss, 'viewer');
      for (const json of [{ email: 'not-an-email', role: 'viewer' }, { email: uniqueEmail(), role: 'root' }, {}]) {
        const bad = await server.api.post('/api/v1/members/invites', { token: boss.token, json });
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('invalid_request');
      }
      const again = await invite(boss, member.email, 'admin');
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('conflict');
      expect((await members(boss.token)).invites).toEqual([]);
    });
  });

  describe('members', () => {
    it('never leaves an account without an owner: the last owner cannot be demoted or removed (409)', async () => {
      const boss = await owner();
      const demote = await patch(`/api/v1/members/${boss.userId}`, boss.token, { role: 'admin' });
      expect(demote.status).toBe(409);
      expect(demote.body.code).toBe('conflict');
      const remove = await server.api.delete(`/api/v1/members/${boss.userId}`, { token: boss.token });
      expect(remove.status).toBe(409);

      // With a second owner the first may step down; then the second is the last and stays.
      const partner = await join(boss, 'owner');
      const stepDown = await patch(`/api/v1/members/${boss.userId}`, boss.token, { role: 'admin' });
      expect(stepDown.status).toBe(200);
      expect(stepDown.body).toMatchObject({ user_id: boss.userId, role: 'admin' });
      const lastOwner = await patch(
        `/api/v1/members/${partner.userId}`,
        partner.token,
        { role: 'viewer' },
        inAccount(boss.userId),
      );
      expect(lastOwner.status).toBe(409);
      const removeLast = await server.api.delete(`/api/v1/members/${partner.userId}`, {
        token: partner.token,
        headers: inAccount(boss.userId),
      });
      expect(removeLast.status).toBe(409);
      expect(await auditActions(boss.token)).toContain('member.role_changed');
    });

    it('lets admins manage members but not owners: 403 forbidden with required_roles [owner]', async () => {
      const boss = await owner();
      const admin = await join(boss, 'admin');
      const dev = await join(boss, 'developer');
      const asAdmin = inAccount(boss.userId);
      const promote = await patch(`/api/v1/members/${dev.userId}`, admin.token, { role: 'billing' }, asAdmin);
      expect(promote.status).toBe(200);
      for (const attempt of [
        patch(`/api/v1/members/${boss.userId}`, admin.token, { role: 'viewer' }, asAdmin),
        patch(`/api/v1/members/${dev.userId}`, admin.token, { role: 'owner' }, asAdmin),
        server.api.delete(`/api/v1/members/${boss.userId}`, { token: admin.token, headers: asAdmin }),
        invite(admin, uniqueEmail(), 'owner', asAdmin),
      ]) {
        const refused = await attempt;
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: 'forbidden', required_roles: ['owner'] });
      }
      expect((await members(boss.token)).members.find((m) => m.user_id === boss.userId)?.role).toBe('owner');
    });

    it('takes the account from a removed member’s sessions at once', async () => {
      const boss = await owner();
      const bossKey = await createKey(server.api, boss.token);
      const member = await join(boss, 'developer');
      await server.api.post('/api/v1/accounts/current', { token: member.token, json: { account_id: boss.userId } });
      expect((await server.api.get('/api/v1/keys', { token: member.token })).body.keys[0].id).toBe(bossKey.id);

      const removed = await server.api.delete(`/api/v1/members/${member.userId}`, { token: boss.token });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ removed: true, keys_revoked: 0 });

      // The very next request acts on their personal account; naming the old one is 404.
      expect((await server.api.get('/api/v1/keys', { token: member.token })).body.keys).toEqual([]);
      const named = await server.api.get('/api/v1/keys', { token: member.token, headers: inAccount(boss.userId) });
      expect(named.status).toBe(404);
      const create = await server.api.post('/api/v1/keys', {
        token: member.token,
        headers: inAccount(boss.userId),
        json: {},
      });
      expect(create.status).toBe(404);
      expect((await server.api.get('/api/v1/accounts', { token: member.token })).body.accounts).toHaveLength(1);
      expect(await auditActions(boss.token)).toContain('member.removed');
    });

    it('keeps everyone in their personal account: nobody is removed from their own (409)', async () => {
      const boss = await owner();
      const partner = await join(boss, 'owner');
      await join(partner, 'admin');
      const refused = await server.api.delete(`/api/v1/members/${boss.userId}`, {
        token: partner.token,
        headers: inAccount(boss.userId),
      });
      expect(refused.status).toBe(409);
    });
  });

  describe('the migration', () => {
    let database: TestDatabase;
    let db: Db;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      db = openDatabase(database.url).db;
      await migrateToLatest(db);
    });
    afterAll(async () => {
      await db.destroy();
      await database.drop();
    });

    it('makes every existing account its person’s user and owner, with the same id, and keeps their sessions', async () => {
      await teamsMigration.down(db as unknown as Kysely<any>);
      const before = db as unknown as Kysely<any>;
      const passwordHash = await hashPassword(TEST_PASSWORD);
      await before
        .insertInto('accounts')
        .values([
          { id: 'acc_old_one', email: 'one@example.test', password_hash: passwordHash, created_at: 1000 },
          { id: 'acc_old_two', email: 'two@example.test', password_hash: passwordHash, created_at: 2000 },
        ])
        .execute();
      await before
        .insertInto('sessions')
        .values({ id: 'a'.repeat(64), account_id: 'acc_old_one', expires_at: 9e12 })
        .execute();
      await teamsMigration.up(before);

      expect(await db.selectFrom('users').select(['id', 'email', 'password_hash']).orderBy('id').execute()).toEqual([
        { id: 'acc_old_one', email: 'one@example.test', password_hash: passwordHash },
        { id: 'acc_old_two', email: 'two@example.test', password_hash: passwordHash },
      ]);
      expect(
        await db.selectFrom('memberships').select(['account_id', 'user_id', 'role']).orderBy('account_id').execute(),
      ).toEqual([
        { account_id: 'acc_old_one', user_id: 'acc_old_one', role: 'owner' },
        { account_id: 'acc_old_two', user_id: 'acc_old_two', role: 'owner' },
      ]);
      expect(await db.selectFrom('accounts').select(['id', 'name']).orderBy('id').execute()).toEqual([
        { id: 'acc_old_one', name: 'one@example.test' },
        { id: 'acc_old_two', name: 'two@example.test' },
      ]);
      expect(await db.selectFrom('sessions').select(['user_id', 'account_id']).execute()).toEqual([
        { user_id: 'acc_old_one', account_id: 'acc_old_one' },
      ]);
    });
  });
});

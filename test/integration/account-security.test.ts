import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticator } from 'otplib';
import { createKey, signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, outboxFor, startSmtpServer, tokenFromOutbox, tokenOfLink } from '../fixtures/mail.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

const NEW_PASSWORD = 'a much newer passphrase';

describeEachDatabase('Account security', (dialect) => {
  let smtp: Smtp;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  const server = useTestServer(dialect, () => ({
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Roomstage <mail@roomstage.test>' },
  }));
  afterAll(async () => {
    await smtp?.close();
  });

  const codeAt = (secret: string) => authenticator.clone({ epoch: server.clock.now() }).generate(secret);
  const login = (json: Record<string, unknown>) => server.api.post('/api/v1/auth/login', { json });
  const audit = async (token: string, action?: string) =>
    (await server.api.get(`/api/v1/audit-log${action ? `?action=${action}` : ''}`, { token })).body.entries as Array<{
      action: string;
      actor: { type: string; id: string; label: string };
      ip: string | null;
      user_agent: string | null;
      details: Record<string, unknown>;
    }>;

  describe('e-mail verification', () => {
    it('e-mails a verification link at sign-up through SMTP, in plain text and HTML, and the link verifies once', async () => {
      const user = await signUp(server.api);
      const mail = await smtp.waitFor(user.email, /Confirm your e-mail/);
      expect(mail.parsed.from?.text).toContain('mail@roomstage.test');
      expect(mail.parsed.html).toContain('Confirm e-mail address');
      const link = /https?:\/\/\S+verify-email\?token=\S+/.exec(mail.parsed.text ?? '')?.[0];
      expect(link).toBeDefined();
      const token = tokenOfLink(link ?? '');
      const verified = await server.api.post('/api/v1/auth/verify-email', { token: user.token, json: { token } });
      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ email: user.email, verified: true });
      const again = await server.api.post('/api/v1/auth/verify-email', { token: user.token, json: { token } });
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('invalid_request');
    });

    it('refuses buying credits before the address is confirmed: 403 email_unverified', async () => {
      const user = await signUp(server.api);
      const refused = await server.api.post('/api/v1/billing/checkout', { token: user.token, json: { credits: 5 } });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'email_unverified', error: 'email unverified' });
      await confirmEmail(server, user.email);
      const allowed = await server.api.post('/api/v1/billing/checkout', { token: user.token, json: { credits: 5 } });
      expect(allowed.status).toBe(200);
    });

    it('sends a new link on request (202) and the older link stops working', async () => {
      const user = await signUp(server.api);
      const first = await tokenFromOutbox(server, user.email, 'verify_email');
      const resent = await server.api.post('/api/v1/auth/resend-verification', { token: user.token });
      expect(resent.status).toBe(202);
      const second = await tokenFromOutbox(server, user.email, 'verify_email');
      expect(second).not.toBe(first);
      const confirm = (token: string) =>
        server.api.post('/api/v1/auth/verify-email', { token: user.token, json: { token } });
      expect((await confirm(first)).status).toBe(400);
      expect((await confirm(second)).status).toBe(200);
    });
  });

  describe('purchase receipt', () => {
    it('e-mails a receipt when a purchase is credited, with the audit entry', async () => {
      const user = await signUp(server.api);
      await confirmEmail(server, user.email);
      const checkout = await server.api.post('/api/v1/billing/checkout', { token: user.token, json: { credits: 12 } });
      const page = await server.api.get(new URL(checkout.body.checkout_url).pathname);
      expect(page.status).toBe(200);
      const receipt = await smtp.waitFor(user.email, /Receipt: 12 Roomstage credits/);
      expect(receipt.parsed.text).toContain(checkout.body.session_id);
      const [entry] = await audit(user.token, 'billing.purchase');
      expect(entry).toMatchObject({ action: 'billing.purchase', details: { credits: 12 } });
    });
  });

  describe('password reset', () => {
    it('answers 202 for any address and e-mails a link only to a registered one', async () => {
      const user = await signUp(server.api);
      const stranger = uniqueEmail('stranger');
      for (const email of [stranger, user.email]) {
        const response = await server.api.post('/api/v1/auth/password-reset', { json: { email } });
        expect(response.status).toBe(202);
        expect(response.body).toEqual({ accepted: true });
      }
      // The link is written just after the answer (so both answers take the same time).
      await tokenFromOutbox(server, user.email, 'password_reset');
      expect(await outboxFor(server, user.email, 'password_reset')).toHaveLength(1);
      expect(await outboxFor(server, stranger)).toHaveLength(0);
    });

    it('sets the new password with the e-mailed link once, and ends every session', async () => {
      const user = await signUp(server.api);
      const other = await login({ email: user.email, password: TEST_PASSWORD });
      await server.api.post('/api/v1/auth/password-reset', { json: { email: user.email } });
      const mail = await smtp.waitFor(user.email, /Reset your Roomstage password/);
      const token = tokenOfLink(/https?:\/\/\S+reset-password\?token=\S+/.exec(mail.parsed.text ?? '')?.[0] ?? '');
      // Only the hash is kept.
      const stored = await server.services.db.selectFrom('user_tokens').select('token_hash').execute();
      expect(stored.map((row) => row.token_hash)).not.toContain(token);

      const wrong = await server.api.post('/api/v1/auth/password-reset/confirm', {
        json: { token: 'not-a-real-token', password: NEW_PASSWORD },
      });
      expect(wrong.status).toBe(400);
      const done = await server.api.post('/api/v1/auth/password-reset/confirm', {
        json: { token, password: NEW_PASSWORD },
      });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ success: true });
      for (const session of [user.token, other.body.token])
        expect((await server.api.get('/api/v1/me', { token: session })).status).toBe(401);
      const reused = await server.api.post('/api/v1/auth/password-reset/confirm', {
        json: { token, password: 'yet another passphrase' },
      });
      expect(reused.status).toBe(400);
      expect((await login({ email: user.email, password: TEST_PASSWORD })).status).toBe(401);
      const signedIn = await login({ email: user.email, password: NEW_PASSWORD });
      expect(signedIn.status).toBe(200);
      const [entry] = await audit(signedIn.body.token, 'user.password_reset');
      expect(entry?.details).toMatchObject({ sessions_ended: 2 });
    });

    it('refuses a reset link after one hour', async () => {
      const user = await signUp(server.api);
      await server.api.post('/api/v1/auth/password-reset', { json: { email: user.email } });
      const token = await tokenFromOutbox(server, user.email, 'password_reset');
      server.clock.advance(61 * 60_000);
      const late = await server.api.post('/api/v1/auth/password-reset/confirm', {
        json: { token, password: NEW_PASSWORD },
      });
      expect(late.status).toBe(400);
      expect((await login({ email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    });

    it('throttles reset requests per e-mail address', async () => {
      const email = uniqueEmail('throttled');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await server.api.post('/api/v1/auth/password-reset', { json: { email } })).status);
      expect(statuses).toContain(429);
    });
  });

  describe('password change and sessions', () => {
    it('lists sessions with the current one marked, and changing the password ends the others', async () => {
      const user = await signUp(server.api);
      const other = await login({ email: user.email, password: TEST_PASSWORD });
      const listed = await server.api.get('/api/v1/me/sessions', {
        token: user.token,
        headers: { 'user-agent': 'SecurityTest/1.0' },
      });
      expect(listed.status).toBe(200);
      expect(listed.body.sessions).toHaveLength(2);
      expect(listed.body.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      expect(listed.body.sessions[0]).toMatchObject({ ip: expect.any(String), created_at: expect.any(String) });

      const wrong = await server.api.post('/api/v1/me/password', {
        token: user.token,
        json: { current_password: 'not the password', new_password: NEW_PASSWORD },
      });
      expect(wrong.status).toBe(400);
      const changed = await server.api.post('/api/v1/me/password', {
        token: user.token,
        json: { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD },
      });
      expect(changed.body).toEqual({ success: true });
      expect((await server.api.get('/api/v1/me', { token: user.token })).status).toBe(200);
      expect((await server.api.get('/api/v1/me', { token: other.body.token })).status).toBe(401);
      const [entry] = await audit(user.token, 'user.password_changed');
      expect(entry).toMatchObject({ actor: { type: 'user', id: user.userId, label: user.email } });
    });

    it('signs out everywhere else', async () => {
      const user = await signUp(server.api);
      const others = [
        await login({ email: user.email, password: TEST_PASSWORD }),
        await login({ email: user.email, password: TEST_PASSWORD }),
      ];
      const ended = await server.api.delete('/api/v1/me/sessions', { token: user.token });
      expect(ended.body).toEqual({ ended: 2 });
      for (const other of others)
        expect((await server.api.get('/api/v1/me', { token: other.body.token })).status).toBe(401);
      expect((await server.api.get('/api/v1/me/sessions', { token: user.token })).body.sessions).toHaveLength(1);
    });
  });

  describe('two-factor sign-in', () => {
    it('sets up with a QR code, signs in only with a fresh code, refuses a replayed code and spends recovery codes once', async () => {
      const user = await signUp(server.api);
      const setup = await server.api.post('/api/v1/me/2fa/setup', { token: user.token });
      expect(setup.status).toBe(200);
      expect(setup.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Roomstage:/);
      expect(setup.body.qr_svg).toMatch(/^<svg/);
      const { secret } = setup.body;
      // Until a code confirms it, the status repeats the waiting setup (a page can show the QR code again).
      const waiting = await server.api.get('/api/v1/me/2fa', { token: user.token });
      expect(waiting.body).toEqual({
        enabled: false,
        enabled_at: null,
        recovery_codes_remaining: 0,
        pending_setup: setup.body,
      });

      const wrongEnable = await server.api.post('/api/v1/me/2fa/enable', {
        token: user.token,
        json: { code: '000000' },
      });
      expect(wrongEnable.status).toBe(400);
      // Kept as it was sent: computed again below, it would be the next step's fresh code whenever a 30-second step
      // ends between the two (waiting for the e-mail takes a moment), and rightly accepted.
      const enablingCode = codeAt(secret);
      const enabled = await server.api.post('/api/v1/me/2fa/enable', {
        token: user.token,
        json: { code: enablingCode },
      });
      expect(enabled.status).toBe(200);
      expect(enabled.body.enabled).toBe(true);
      expect(enabled.body.recovery_codes).toHaveLength(10);
      await smtp.waitFor(user.email, /Two-factor sign-in was turned on/);
      const on = await server.api.get('/api/v1/me/2fa', { token: user.token });
      expect(on.body).toMatchObject({ enabled: true, recovery_codes_remaining: 10, pending_setup: null });
      expect(on.text).not.toContain(secret);

      const missing = await login({ email: user.email, password: TEST_PASSWORD });
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe('otp_required');
      expect(missing.body.token).toBeUndefined();

      // The code that enabled it was spent: the same 30-second code is refused.
      const replayOfEnable = await login({ email: user.email, password: TEST_PASSWORD, otp: enablingCode });
      expect(replayOfEnable.status).toBe(401);
      expect(replayOfEnable.body.code).toBe('authentication_required');

      server.clock.advance(30_000);
      const code = codeAt(secret);
      const wrongPassword = await login({ email: user.email, password: 'not the password', otp: code });
      const signedIn = await login({ email: user.email, password: TEST_PASSWORD, otp: code });
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.token).toEqual(expect.any(String));
      const replay = await login({ email: user.email, password: TEST_PASSWORD, otp: code });
      expect(replay.status).toBe(401);
      expect(replay.body).toEqual(wrongPassword.body);

      // A fresh minute: the five second-factor attempts of this one are spent.
      server.clock.advance(60_000);
      const [recovery] = enabled.body.recovery_codes as string[];
      const byRecovery = await login({ email: user.email, password: TEST_PASSWORD, recovery_code: recovery });
      expect(byRecovery.status).toBe(200);
      const recoveryAgain = await login({ email: user.email, password: TEST_PASSWORD, recovery_code: recovery });
      expect(recoveryAgain.status).toBe(401);
      expect((await server.api.get('/api/v1/me/2fa', { token: user.token })).body.recovery_codes_remaining).toBe(9);

      const codesStored = await server.services.db
        .selectFrom('recovery_codes')
        .select('code_hash')
        .where('user_id', '=', user.userId)
        .execute();
      expect(codesStored.map((row) => row.code_hash)).not.toContain(recovery);

      const actions = (await audit(user.token)).map((entry) => entry.action);
      expect(actions).toEqual(expect.arrayContaining(['user.2fa_enabled', 'user.signed_in', 'user.sign_in_failed']));

      const needsCode = await server.api.post('/api/v1/me/2fa/disable', {
        token: user.token,
        json: { password: TEST_PASSWORD },
      });
      expect(needsCode.body.code).toBe('otp_required');
      const [, secondRecovery] = enabled.body.recovery_codes as string[];
      const disabled = await server.api.post('/api/v1/me/2fa/disable', {
        token: user.token,
        json: { password: TEST_PASSWORD, recovery_code: secondRecovery },
      });
      expect(disabled.body).toEqual({ enabled: false });
      expect((await login({ email: user.email, password: TEST_PASSWORD })).status).toBe(200);
      expect((await audit(user.token, 'user.2fa_disabled')).length).toBe(1);
    });

    it('throttles second-factor attempts per user', async () => {
      server.clock.advanceTo(startOfNextMinute(server.clock));
      const user = await signUp(server.api);
      const { secret } = (await server.api.post('/api/v1/me/2fa/setup', { token: user.token })).body;
      await server.api.post('/api/v1/me/2fa/enable', { token: user.token, json: { code: codeAt(secret) } });
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await login({ email: user.email, password: TEST_PASSWORD, otp: '123456' })).status);
      expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
      expect(statuses.at(-1)).toBe(429);
    });
  });

  describe('API key scopes and expiry', () => {
    it('shows scopes and expiry, refuses a call outside the scopes with 403 insufficient_scope', async () => {
      const user = await signUp(server.api);
      const key = await createKey(server.api, user.token, { scopes: ['jobs:read'] });
      const listed = await server.api.get('/api/v1/keys', { token: user.token });
      expect(listed.body.keys[0]).toMatchObject({ scopes: ['jobs:read'], expires_at: null });
      const refused = await server.api.get('/api/v1/credits', { token: key.key });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'credits:read' });

      const full = await createKey(server.api, user.token);
      expect((await server.api.get('/api/v1/credits', { token: full.key })).status).toBe(200);
      const fullListed = (await server.api.get('/api/v1/keys', { token: user.token })).body.keys[0];
      expect(fullListed.scopes).toEqual([
        'stage',
        'enhance',
        'place_products',
        'declutter',
        'credits:read',
        'jobs:read',
      ]);
    });

    it('refuses an expired key with 401', async () => {
      const user = await signUp(server.api);
      const expiresAt = new Date(server.clock.now() + 3_600_000).toISOString();
      const key = await createKey(server.api, user.token, { expires_at: expiresAt });
      expect((await server.api.get('/api/v1/credits', { token: key.key })).status).toBe(200);
      server.clock.advance(2 * 3_600_000);
      const expired = await server.api.get('/api/v1/credits', { token: key.key });
      expect(expired.status).toBe(401);
      expect(expired.body.code).toBe('authentication_required');
    });
  });

  describe('audit log', () => {
    it('records key creation and revocation with the actor, address and client, paged newest first', async () => {
      const user = await signUp(server.api);
      const headers = { 'user-agent': 'AuditTest/2.0' };
      const key = (await server.api.post('/api/v1/keys', { token: user.token, json: { name: 'ci' }, headers })).body;
      await server.api.delete(`/api/v1/keys/${key.id}`, { token: user.token, headers });
      await server.api.put('/api/v1/settings/notifications', {
        token: user.token,
        json: { low_balance_threshold: 7 },
      });
      const first = await server.api.get('/api/v1/audit-log?limit=2', { token: user.token });
      expect(first.status).toBe(200);
      expect(first.body.has_more).toBe(true);
      expect(first.body.entries.map((e: { action: string }) => e.action)).toEqual(['settings.updated', 'key.revoked']);
      const revoked = first.body.entries[1];
      expect(revoked).toMatchObject({
        actor: { type: 'user', id: user.userId, label: user.email },
        user_agent: 'AuditTest/2.0',
        target: `key_${key.id}`,
        ip: expect.any(String),
      });
      const next = await server.api.get(`/api/v1/audit-log?limit=2&starting_after=${revoked.id}`, {
        token: user.token,
      });
      expect(next.body.entries.map((e: { action: string }) => e.action)).toEqual(['key.created']);
      expect(next.body.has_more).toBe(false);
      // Another account sees none of it.
      const stranger = await signUp(server.api);
      expect((await server.api.get('/api/v1/audit-log', { token: stranger.token })).body.entries).toEqual([]);
    });

    it('purges entries older than AUDIT_RETENTION with the retention pass', async () => {
      const user = await signUp(server.api);
      await createKey(server.api, user.token);
      const { purgeExpired } = await import('../../server/retention/purge.js');
      const policy = { ...server.services.config.retention };
      const entries = () =>
        server.services.db.selectFrom('audit_log').select('action').where('account_id', '=', user.userId).execute();
      await purgeExpired(server.services.db, server.services.storage, policy, server.clock.now() + 364 * 86_400_000);
      expect(await entries()).toHaveLength(1);
      await purgeExpired(server.services.db, server.services.storage, policy, server.clock.now() + 366 * 86_400_000);
      expect(await entries()).toEqual([]);
    });
  });
});

import { expect, it } from 'vitest';
import { createKey, signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';
import { sessionIdHash } from '../../server/auth/lucia-adapter.js';

describeEachDatabase('Accounts and identity tokens', (dialect) => {
  const server = useTestServer(dialect);

  it('signs up with 201, a token and the user', async () => {
    const email = uniqueEmail();
    const response = await server.api.post('/api/v1/auth/signup', { json: { email, password: TEST_PASSWORD } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      token: expect.any(String),
      user: { id: expect.stringMatching(/^acc_/), email, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) },
    });
  });

  it('refuses a duplicate e-mail, compared case-insensitively, with 409 conflict', async () => {
    const email = uniqueEmail();
    await signUp(server.api, email);
    const response = await server.api.post('/api/v1/auth/signup', {
      json: { email: email.toUpperCase(), password: TEST_PASSWORD },
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: 'conflict', code: 'conflict', message: expect.any(String) });
  });

  it('refuses a password of spaces, or one that is long only thanks to spaces at its ends', async () => {
    for (const password of [' '.repeat(10), '\t'.repeat(12), '   short   ', ' '.repeat(40)]) {
      const response = await server.api.post('/api/v1/auth/signup', { json: { email: uniqueEmail(), password } });
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual([
        { path: 'password', message: expect.stringMatching(/at least 10 characters/) },
      ]);
    }
    const inner = await server.api.post('/api/v1/auth/signup', {
      json: { email: uniqueEmail(), password: 'a passphrase with spaces' },
    });
    expect(inner.status).toBe(201);
  });

  it('rejects a short password and a bad e-mail with 400 and field details', async () => {
    const response = await server.api.post('/api/v1/auth/signup', {
      json: { email: 'not-an-email', password: 'short' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect(response.body.error).toBe('invalid request');
    expect(response.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'password']);
  });

  it('logs in with any letter case of the e-mail', async () => {
    const { email } = await signUp(server.api);
    const response = await server.api.post('/api/v1/auth/login', {
      json: { email: email.toUpperCase(), password: TEST_PASSWORD },
    });
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe(email);
    expect((await server.api.get('/api/v1/me', { token: response.body.token })).body.email).toBe(email);
  });

  it('answers unknown e-mail and wrong password with the same 401 body', async () => {
    const { email } = await signUp(server.api);
    const wrongPassword = await server.api.post('/api/v1/auth/login', {
      json: { email, password: 'not the password' },
    });
    const unknownEmail = await server.api.post('/api/v1/auth/login', {
      json: { email: uniqueEmail(), password: TEST_PASSWORD },
    });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.body.code).toBe('authentication_required');
  });

  it('ends the token at once on logout', async () => {
    const { token } = await signUp(server.api);
    expect((await server.api.get('/api/v1/me', { token })).status).toBe(200);
    const logout = await server.api.post('/api/v1/auth/logout', { token });
    expect(logout.status).toBe(200);
    expect(logout.body).toEqual({ success: true });
    const after = await server.api.get('/api/v1/me', { token });
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/sign in/i);
  });

  it('accepts the identity token as the dashboard cookie too', async () => {
    const { token, email } = await signUp(server.api);
    const response = await server.api.get('/api/v1/me', { headers: { cookie: `roomstage_session=${token}` } });
    expect(response.status).toBe(200);
    expect(response.body.email).toBe(email);
  });

  it('treats an API key on a Token endpoint as no credential (401)', async () => {
    const { token } = await signUp(server.api);
    const { key } = await createKey(server.api, token);
    for (const [method, path] of [
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/keys'],
      ['POST', '/api/v1/keys'],
    ] as const) {
      const response = await server.api.request(method, path, { token: key });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body).toMatchObject({ error: 'authentication required', code: 'authentication_required' });
    }
  });

  it('expires a session after 30 days without use', async () => {
    const { token } = await signUp(server.api);
    const row = await server.services.db
      .selectFrom('sessions')
      .select('expires_at')
      .where('id', '=', sessionIdHash(token))
      .executeTakeFirstOrThrow();
    const days = (row.expires_at - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    await server.services.db
      .updateTable('sessions')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', sessionIdHash(token))
      .execute();
    expect((await server.api.get('/api/v1/me', { token })).status).toBe(401);
  });

  it('stores passwords only as salted scrypt hashes', async () => {
    const { email } = await signUp(server.api);
    const row = await server.services.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$\d+\$8\$1\$/);
    expect(row.password_hash).not.toContain(TEST_PASSWORD);
  });
});

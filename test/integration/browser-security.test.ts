import { expect, it } from 'vitest';
import { sessionIdHash } from '../../server/auth/lucia-adapter.js';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

const EVIL_ORIGIN = 'https://evil.example';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'origin, cookie and header checks that run before any query';

describeOnSqlite('Browser security', SQLITE_ONLY, (dialect) => {
  // TRUST_PROXY=loopback lets each test speak from its own client address (X-Forwarded-For) and over "HTTPS".
  const server = useTestServer(dialect, {
    env: { TRUST_PROXY: 'loopback', SIGN_IN_LIMIT_PER_IP: '8', SIGN_IN_LIMIT_PER_EMAIL: '3' },
  });
  let nextAddress = 1;
  const freshAddress = () => `10.20.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

  /** A new account signed up from an address of its own, so the sign-in budgets of other tests are untouched. */
  async function signUp() {
    const email = uniqueEmail('browser');
    const response = await server.api.post('/api/v1/auth/signup', {
      json: { email, password: TEST_PASSWORD },
      headers: { 'x-forwarded-for': freshAddress() },
    });
    expect(response.status).toBe(201);
    const token = response.body.token as string;
    return { email, token, cookie: `${SESSION_COOKIE_NAME}=${token}` };
  }

  const keyCount = async (token: string) =>
    (await server.api.get('/api/v1/keys', { token })).body.keys.length as number;

  /** Starts each throttle test at the beginning of a fresh one-minute window, so no window ends halfway through. */
  function startFreshRateWindow() {
    const now = server.clock.now();
    server.clock.advance(Math.ceil(now / 60_000) * 60_000 - now + 1);
  }

  it('sets the session cookie HttpOnly and SameSite=Lax, and Secure only when the request came over HTTPS', async () => {
    const { email } = await signUp();
    const body = new URLSearchParams({ email, password: TEST_PASSWORD }).toString();
    const plain = await server.api.post('/login', {
      body,
      headers: { ...FORM, origin: server.url, 'x-forwarded-for': freshAddress() },
    });
    expect(plain.status).toBe(302);
    const plainCookie = plain.headers.get('set-cookie') ?? '';
    expect(plainCookie).toMatch(new RegExp(`^${SESSION_COOKIE_NAME}=`));
    expect(plainCookie).toMatch(/; HttpOnly/i);
    expect(plainCookie).toMatch(/; SameSite=Lax/i);
    expect(plainCookie).not.toMatch(/; Secure/i);

    const host = new URL(server.url).host;
    const proxied = await server.api.post('/login', {
      body,
      headers: { ...FORM, origin: `https://${host}`, 'x-forwarded-proto': 'https', 'x-forwarded-for': freshAddress() },
    });
    expect(proxied.status).toBe(302);
    const secureCookie = proxied.headers.get('set-cookie') ?? '';
    expect(secureCookie).toMatch(/; HttpOnly/i);
    expect(secureCookie).toMatch(/; SameSite=Lax/i);
    expect(secureCookie).toMatch(/; Secure/i);
  });

  it('refuses a cross-site form post to a dashboard action with 403 and creates nothing', async () => {
    const account = await signUp();
    const body = new URLSearchParams({ intent: 'create', name: 'Forged' }).toString();
    const forged = await server.api.post('/keys', {
      body,
      headers: { ...FORM, cookie: account.cookie, origin: EVIL_ORIGIN },
    });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('another site');
    const fetchMetadataOnly = await server.api.post('/keys', {
      body,
      headers: { ...FORM, cookie: account.cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(fetchMetadataOnly.status).toBe(403);
    expect(await keyCount(account.token)).toBe(0);

    const sameSite = await server.api.post('/keys', {
      body,
      headers: { ...FORM, cookie: account.cookie, origin: server.url, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameSite.status).toBe(201);
    expect(await keyCount(account.token)).toBe(1);
  });

  it('refuses a cross-site sign-in form post (login CSRF) without starting a session', async () => {
    const { email } = await signUp();
    const body = new URLSearchParams({ email, password: TEST_PASSWORD }).toString();
    const forged = await server.api.post('/login', {
      body,
      headers: { ...FORM, origin: EVIL_ORIGIN, 'x-forwarded-for': freshAddress() },
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a cross-site /trpc mutation that rides on the cookie with 403 forbidden and creates nothing', async () => {
    const account = await signUp();
    const forged = await server.api.post('/trpc/keys.create', {
      json: { name: 'Forged' },
      headers: { cookie: account.cookie, origin: EVIL_ORIGIN },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.data.contract.body).toMatchObject({ error: 'forbidden', code: 'forbidden' });
    // JSON-RPC clients read the tRPC code: FORBIDDEN (-32003), never INTERNAL_SERVER_ERROR.
    expect({ code: forged.body.error.code, data: forged.body.error.data.code }).toEqual({
      code: -32003,
      data: 'FORBIDDEN',
    });
    const fetchMetadataOnly = await server.api.post('/trpc/keys.create', {
      json: { name: 'Forged' },
      headers: { cookie: account.cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(fetchMetadataOnly.status).toBe(403);
    expect(await keyCount(account.token)).toBe(0);

    const sameSite = await server.api.post('/trpc/keys.create', {
      json: { name: 'Mine' },
      headers: { cookie: account.cookie, origin: server.url },
    });
    expect(sameSite.status).toBe(201);
    expect(await keyCount(account.token)).toBe(1);
  });

  it('refuses a cross-site Token REST call authenticated by the cookie with the JSON error body, and leaves Bearer calls alone', async () => {
    const account = await signUp();
    const forged = await server.api.post('/api/v1/keys', {
      json: { name: 'Forged' },
      headers: { cookie: account.cookie, origin: EVIL_ORIGIN },
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ error: 'forbidden', code: 'forbidden' });
    expect(typeof forged.body.message).toBe('string');
    expect(await keyCount(account.token)).toBe(0);

    const bearer = await server.api.post('/api/v1/keys', {
      token: account.token,
      json: { name: 'Server-side' },
      headers: { origin: EVIL_ORIGIN },
    });
    expect(bearer.status).toBe(201);
    expect(await keyCount(account.token)).toBe(1);
  });

  it('sends a nonce-based CSP that forbids framing, nosniff and a referrer policy, and every inline script carries the nonce', async () => {
    const page = await server.api.get('/login');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-/);
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    const inlineScripts = [...page.text.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((match) => match[1]!);
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const attributes of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`);

    const again = await server.api.get('/login');
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);

    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');

    const docs = await server.api.get('/docs/');
    expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(docs.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // The public reference has nothing for an opener policy to guard (see security-headers.ts); Swagger UI keeps it.
    expect(docs.headers.get('cross-origin-opener-policy')).toBeNull();
    expect((await server.api.get('/docs/images')).headers.get('cross-origin-opener-policy')).toBeNull();
    expect((await server.api.get('/docs/try')).headers.get('cross-origin-opener-policy')).toBe('same-origin');

    // Data endpoints are never documents: a fixed policy that allows nothing, with the same other headers.
    for (const path of ['/api/health', '/api/v1/openapi.json', '/api/v1/no-such-thing', '/trpc/health']) {
      const data = await server.api.get(path);
      expect(data.headers.get('content-security-policy'), path).toBe("default-src 'none';frame-ancestors 'none'");
      expect(data.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(data.headers.get('x-frame-options'), path).toBe('DENY');
    }
  });

  it('throttles sign-in per e-mail address across client addresses with 429 and Retry-After, even for the right password', async () => {
    const { email } = await signUp();
    startFreshRateWindow();
    for (let attempt = 0; attempt < 3; attempt++) {
      const wrong = await server.api.post('/api/v1/auth/login', {
        json: { email, password: 'not the password' },
        headers: { 'x-forwarded-for': freshAddress() },
      });
      expect(wrong.status).toBe(401);
    }
    const throttled = await server.api.post('/api/v1/auth/login', {
      json: { email: email.toUpperCase(), password: TEST_PASSWORD },
      headers: { 'x-forwarded-for': freshAddress() },
    });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('rate_limited');
    expect(throttled.body.message).toMatch(/e-mail address/);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.body.token).toBeUndefined();
  });

  it('throttles sign-in and sign-up per client address, and the dashboard shows a friendly 429 page', async () => {
    startFreshRateWindow();
    const address = freshAddress();
    for (let attempt = 0; attempt < 8; attempt++) {
      const response = await server.api.post('/api/v1/auth/login', {
        json: { email: uniqueEmail('guess'), password: 'guessing-123' },
        headers: { 'x-forwarded-for': address },
      });
      expect(response.status).toBe(401);
    }
    const signup = await server.api.post('/api/v1/auth/signup', {
      json: { email: uniqueEmail('late'), password: TEST_PASSWORD },
      headers: { 'x-forwarded-for': address },
    });
    expect(signup.status).toBe(429);
    expect(signup.body.message).toMatch(/from your network/);

    const body = new URLSearchParams({ email: uniqueEmail('late'), password: TEST_PASSWORD }).toString();
    const page = await server.api.post('/login', {
      body,
      headers: { ...FORM, origin: server.url, 'x-forwarded-for': address },
    });
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toMatch(/Please wait \d+ s and try again/);
    expect(page.text).toContain('keep accounts safe');
    expect(page.headers.get('set-cookie')).toBeNull();

    const elsewhere = await server.api.post('/api/v1/auth/signup', {
      json: { email: uniqueEmail('other'), password: TEST_PASSWORD },
      headers: { 'x-forwarded-for': freshAddress() },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('stores only a hash of each session id: a copy of the sessions table signs nobody in', async () => {
    const account = await signUp();
    const rows = await server.services.db.selectFrom('sessions').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.id === account.token)).toBe(false);
    expect(rows.some((row) => row.id === sessionIdHash(account.token))).toBe(true);
    const stolen = rows.find((row) => row.id === sessionIdHash(account.token))!;
    expect((await server.api.get('/api/v1/me', { token: stolen.id })).status).toBe(401);
    expect(
      (await server.api.get('/api/v1/me', { headers: { cookie: `${SESSION_COOKIE_NAME}=${stolen.id}` } })).status,
    ).toBe(401);
    expect((await server.api.get('/api/v1/me', { token: account.token })).status).toBe(200);

    await server.api.post('/api/v1/auth/logout', { token: account.token });
    expect(
      await server.services.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionIdHash(account.token))
        .executeTakeFirst(),
    ).toBeUndefined();
  });
});

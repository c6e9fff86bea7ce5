import { request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { fetchImage, imageForm, onServer, roomJpeg } from '../fixtures/images.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';
import { useImagingServer } from '../helpers/staging.js';
import { browserAgent, fetchFrom, loopbackAddress } from '../fixtures/ads.js';

const MB = 1024 * 1024;

/**
 * Starts a POST that declares `declaredBytes` but sends only the first 64 KB and waits: the server must answer on
 * its own, without the rest of the body. Resolves with the response (status, headers, JSON body).
 */
function partialUpload(url: string, path: string, headers: Record<string, string>, declaredBytes = 100 * MB) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: any; abort: () => void }>(
    (resolve, reject) => {
      const req = httpRequest(new URL(path, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(declaredBytes), ...headers },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: text ? JSON.parse(text) : null,
            abort: () => req.destroy(),
          }),
        );
      });
      req.on('error', (error) =>
        (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE'
          ? undefined
          : reject(error),
      );
      req.write(`{"image":"${'A'.repeat(64 * 1024)}`);
    },
  );
}

/** Like partialUpload, but leaves the request hanging open and hands it back (a body still on its way). */
function hangingUpload(url: string, path: string, headers: Record<string, string>) {
  const req = httpRequest(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(100 * MB), ...headers },
  });
  req.on('error', () => {});
  req.write(`{"image":"${'A'.repeat(64 * 1024)}`);
  return req;
}

describeEachDatabase('Abuse limits', (dialect) => {
  const server = useImagingServer(dialect, {
    env: { CLAIM_ATTEMPTS_PER_MINUTE: '5', IMAGE_WORK_PER_PROCESS: '1' },
  });

  it('refuses a /trpc body over 1 MB with a 413 JSON error', async () => {
    const response = await server.api.post('/trpc/auth.login', {
      json: { email: 'a@example.test', password: 'x'.repeat(2 * MB) },
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.body.error.data.contract.body.code).toBe('payload_too_large');
  });

  it('answers 401 to an image upload with a key-shaped but unknown key before the body has arrived', async () => {
    const response = await partialUpload(server.url, '/api/v1/stage', {
      authorization: `Bearer sk_live_${'x'.repeat(32)}`,
    });
    response.abort();
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('authentication_required');
  });

  it('answers 401 to an image upload with a revoked key before the body has arrived', async () => {
    const account = await signUpWithKey(server.api);
    expect((await server.api.delete(`/api/v1/keys/${account.keyId}`, { token: account.token })).status).toBeLessThan(
      300,
    );
    const response = await partialUpload(server.url, '/api/v1/enhance', { authorization: `Bearer ${account.key}` });
    response.abort();
    expect(response.status).toBe(401);
  });

  it('turns image work beyond IMAGE_WORK_PER_PROCESS away with 503 and Retry-After, and takes it again once the work is done', async () => {
    const { key } = await signUpWithKey(server.api);
    const photo = await roomJpeg(400, 300);
    const first = hangingUpload(server.url, '/api/v1/stage', { authorization: `Bearer ${key}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body.code).toBe('service_unavailable');
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.services.imageWork.inFlight).toBe(0);
    const accepted = await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) });
    expect(accepted.status).toBe(200);
  });

  it('limits claim previews and redemptions per IP, whoever is signed in, with 429 and Retry-After', async () => {
    const first = await signUp(server.api);
    const second = await signUp(server.api);
    const attempt = (token: string, path: string, code: string) => server.api.post(path, { token, json: { code } });
    // The budget is per minute: start from a fresh window so the test does not straddle two.
    server.clock.advanceTo(startOfNextMinute(server.clock));
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await attempt(first.token, '/api/v1/claim/preview', `RS-0000000${i}`)).status);
    for (let i = 0; i < 2; i++) statuses.push((await attempt(second.token, '/api/v1/claim', `RS-1000000${i}`)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404]);
    const limited = await attempt(second.token, '/api/v1/claim/preview', 'RS-20000000');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt(first.token, '/api/v1/claim', 'RS-20000001')).status).toBe(429);
    server.clock.advance(60_000);
    expect((await attempt(first.token, '/api/v1/claim/preview', 'RS-20000002')).status).toBe(404);
  });

  it('counts a placed image once per client address per 24 hours, whatever its User-Agent', async () => {
    const { key } = await signUpWithKey(server.api);
    const placed = await server.api.post('/api/v1/place-products', {
      token: key,
      json: { image: (await roomJpeg(500, 400)).toString('base64') },
    });
    expect(placed.status).toBe(200);
    const url = new URL(onServer(placed.body.image_url), server.url);
    const storageName = url.pathname.split('/').pop()!;
    const impressions = async () => {
      const row = await server.services.db
        .selectFrom('placements')
        .innerJoin('images', 'images.id', 'placements.image_id')
        .select((eb) => eb.fn.max('placements.impressions').as('n'))
        .where('images.storage_name', '=', storageName)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    };
    const [a, b] = [loopbackAddress(500), loopbackAddress(501)];
    const view = (address: string, version: number) =>
      fetchFrom(address, url, { headers: { 'user-agent': browserAgent(version) } });
    await Promise.all([view(a, 1), view(a, 2), view(a, 3)]);
    expect(await impressions()).toBe(1);
    await view(b, 1);
    expect(await impressions()).toBe(2);
    server.clock.advance(24 * 3_600_000 - 60_000);
    await view(a, 4);
    expect(await impressions()).toBe(2);
    server.clock.advance(60_000);
    await view(a, 5);
    expect(await impressions()).toBe(3);
    expect((await fetchImage(server, placed.body.image_url)).response.status).toBe(200);
  });
});

describe('Dashboard form posts', () => {
  const server = useTestServer('sqlite');

  it('refuses a form post over 1 MB with a 413 JSON error before reading it', async () => {
    const response = await partialUpload(
      server.url,
      '/login',
      { 'content-type': 'application/x-www-form-urlencoded' },
      2 * MB,
    );
    response.abort();
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  it('still takes an ordinary form post', async () => {
    const response = await server.api.post('/login', {
      body: new URLSearchParams({ email: 'nobody@example.test', password: 'wrong password' }),
    });
    expect(response.status).not.toBe(413);
    expect(response.status).toBeLessThan(500);
  });
});

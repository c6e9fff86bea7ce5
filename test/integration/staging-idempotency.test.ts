import { beforeAll, expect, it } from 'vitest';
import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';

describeEachDatabase('Idempotent retries and image operations in flight over HTTP', (dialect) => {
  const server = useImagingServer(dialect, { env: { RATE_LIMIT_CONCURRENT: '2' } });
  let room: Buffer;
  let otherRoom: Buffer;
  beforeAll(async () => {
    room = await roomJpeg(640, 480);
    otherRoom = await roomJpeg(480, 640);
  });

  const stage = (key: string, idempotencyKey: string | null, image = room, style = 'modern') =>
    server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: image }], { style }),
      headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
    });

  it('replays the first response to a retry with the same key and request, charging once', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const first = await stage(key, 'listing-7-living');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await stage(key, 'listing-7-living');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await creditsOf(server.api, key)).toBe(9);
    expect(await ledgerSum(server.services.db, userId)).toBe(9);
  });

  it('refuses the same key with a different request (another file or another style) with 409', async () => {
    const { key } = await signUpWithKey(server.api);
    expect((await stage(key, 'k1')).status).toBe(200);
    const otherFile = await stage(key, 'k1', otherRoom);
    expect(otherFile.status).toBe(409);
    expect(otherFile.body).toMatchObject({
      error: 'conflict',
      code: 'conflict',
      message: expect.stringMatching(/different request/),
    });
    expect((await stage(key, 'k1', room, 'industrial')).status).toBe(409);
    expect(await creditsOf(server.api, key)).toBe(9);
  });

  it('lets exactly one of simultaneous repeats run; the others get 409 or the replay, and one credit is spent', async () => {
    const { key } = await signUpWithKey(server.api);
    const responses = await Promise.all([1, 2, 3, 4].map(() => stage(key, 'burst')));
    const ran = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const response of responses.filter((r) => r !== ran[0])) {
      if (response.status === 200) expect(response.body.claim_code).toBe(ran[0]!.body.claim_code);
      else {
        expect(response.body).toMatchObject({
          code: 'conflict',
          message: expect.stringMatching(/still being processed|in use/),
        });
        expect(response.headers.get('retry-after')).toBe('2');
      }
    }
    expect(await creditsOf(server.api, key)).toBe(9);
  });

  it('frees the key after a failed request, so the retry runs and charges once', async () => {
    const { key } = await signUpWithKey(server.api);
    const failed = await server.api.post('/api/v1/stage', {
      token: key,
      json: { image: 'not base64!' },
      headers: { 'Idempotency-Key': 'retry-after-fix' },
    });
    expect(failed.status).toBe(400);
    const retried = await server.api.post('/api/v1/stage', {
      token: key,
      json: { image: room.toString('base64') },
      headers: { 'Idempotency-Key': 'retry-after-fix' },
    });
    expect(retried.status).toBe(200);
    expect(await creditsOf(server.api, key)).toBe(9);
  });

  it('scopes Idempotency-Keys to the API key and refuses malformed ones', async () => {
    const a = await signUpWithKey(server.api);
    const b = await signUpWithKey(server.api);
    const first = await stage(a.key, 'shared-name');
    const second = await stage(b.key, 'shared-name');
    expect(second.status).toBe(200);
    expect(second.body.claim_code).not.toBe(first.body.claim_code);
    const tooLong = await stage(a.key, 'x'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('invalid_request');
  });

  it('refuses a JSON body that names an uploaded file it did not upload', async () => {
    const { key } = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/stage', {
      token: key,
      json: { image: `upload:sha256:${'0'.repeat(64)}` },
    });
    expect(response.status).toBe(400);
    expect(response.body.details[0].path).toBe('image');
    expect(await creditsOf(server.api, key)).toBe(10);
  });

  it('answers 429 with Retry-After beyond the image operations a key may run at once, charging nothing for them', async () => {
    const { key } = await signUpWithKey(server.api);
    const big = await roomJpeg(3000, 2000);
    const responses = await Promise.all([1, 2, 3, 4, 5, 6].map(() => stage(key, null, big)));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
    for (const response of limited) {
      expect(response.body).toMatchObject({ error: 'rate limited', code: 'rate_limited' });
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(await creditsOf(server.api, key)).toBe(10 - responses.filter((r) => r.status === 200).length);
  });
});

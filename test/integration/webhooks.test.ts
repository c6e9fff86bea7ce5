import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { useTestServer } from '../helpers/server.js';
import { emitStagingEvents, independentlyVerified } from '../helpers/webhooks.js';

describeEachDatabase('Webhooks over HTTP', (dialect) => {
  const server = useTestServer(dialect);
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.mode = { kind: 'ok' };
    receiver.failFirst(0);
  });

  const path = (keyId: number, rest = '') => `/api/v1/keys/${keyId}/webhook${rest}`;

  async function configured(enabled = true) {
    const account = await signUpWithKey(server.api);
    const put = await server.api.put(path(account.keyId), {
      token: account.token,
      json: { url: receiver.url, enabled },
    });
    expect(put.status).toBe(200);
    return { ...account, secret: put.body.secret as string };
  }

  const requestsFor = (eventId: string) => receiver.requests.filter((r) => r.headers['x-webhook-id'] === eventId);

  describe('configuration', () => {
    it('reports an unconfigured webhook with nulls', async () => {
      const { token, keyId } = await signUpWithKey(server.api);
      const response = await server.api.get(path(keyId), { token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        key_id: keyId,
        url: null,
        enabled: false,
        secret: null,
        created_at: null,
        updated_at: null,
        disabled_reason: null,
      });
    });

    it('creates a whsec_ secret at the first PUT and keeps it across updates', async () => {
      const { token, keyId } = await signUpWithKey(server.api);
      const first = await server.api.put(path(keyId), { token, json: { url: receiver.url, enabled: true } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        key_id: keyId,
        url: receiver.url,
        enabled: true,
        secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        disabled_reason: null,
      });
      server.clock.advance(1_000);
      const second = await server.api.put(path(keyId), { token, json: { url: `${receiver.url}?v=2`, enabled: false } });
      expect(second.body).toMatchObject({
        url: `${receiver.url}?v=2`,
        enabled: false,
        secret: first.body.secret,
        created_at: first.body.created_at,
      });
      expect(Date.parse(second.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
      expect((await server.api.get(path(keyId), { token })).body).toEqual(second.body);
    });

    it('rejects a url that is not http(s), a missing url and a missing or non-boolean enabled with 400 invalid_request', async () => {
      const { token, keyId } = await signUpWithKey(server.api);
      for (const json of [
        { url: 'ftp://example.com/hook', enabled: true },
        { url: 'javascript:alert(1)', enabled: true },
        { url: 'not a url', enabled: true },
        { enabled: true },
        { url: receiver.url },
        // Strings are not booleans: "false" must never switch a webhook on.
        { url: receiver.url, enabled: 'false' },
        { url: receiver.url, enabled: 1 },
      ]) {
        const response = await server.api.put(path(keyId), { token, json });
        expect(response.status, JSON.stringify(json)).toBe(400);
        expect(response.body).toMatchObject({
          error: 'invalid request',
          code: 'invalid_request',
          details: expect.any(Array),
        });
      }
      expect((await server.api.get(path(keyId), { token })).body.url).toBeNull();
    });

    it('answers 404 for another account’s key on every webhook endpoint, and 401 without a token', async () => {
      const owner = await configured();
      const { token: stranger } = await signUp(server.api);
      const calls = [
        server.api.get(path(owner.keyId), { token: stranger }),
        server.api.put(path(owner.keyId), { token: stranger, json: { url: receiver.url, enabled: true } }),
        server.api.post(path(owner.keyId, '/test'), { token: stranger }),
        server.api.post(path(owner.keyId, '/rotate-secret'), { token: stranger }),
        server.api.get(path(owner.keyId, '/deliveries'), { token: stranger }),
        server.api.post(path(owner.keyId, '/deliveries/whd_x/retry'), { token: stranger }),
        server.api.get(path(999_999), { token: owner.token }),
      ];
      for (const response of await Promise.all(calls)) {
        expect(response.status).toBe(404);
        expect(response.body).toMatchObject({ error: 'not found', code: 'not_found' });
      }
      expect((await server.api.get(path(owner.keyId))).status).toBe(401);
      expect((await server.api.get(path(owner.keyId), { token: owner.key })).status).toBe(401);
      expect((await server.api.get(path(owner.keyId), { token: owner.token })).body.url).toBe(receiver.url);
    });

    it('rotates the secret: the next delivery is signed with the new one', async () => {
      const { token, keyId, secret } = await configured();
      const rotated = await server.api.post(path(keyId, '/rotate-secret'), { token });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(rotated.body.secret).not.toBe(secret);
      const ping = await server.api.post(path(keyId, '/test'), { token });
      const [request] = requestsFor(ping.body.event_id);
      expect(independentlyVerified(rotated.body.secret, request!)).toBe(true);
      expect(independentlyVerified(secret, request!)).toBe(false);
    });

    it('refuses to rotate or test a webhook that has no url: 409 webhook_not_configured', async () => {
      const { token, keyId } = await signUpWithKey(server.api);
      for (const response of [
        await server.api.post(path(keyId, '/test'), { token }),
        await server.api.post(path(keyId, '/rotate-secret'), { token }),
      ]) {
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({ error: 'webhook not configured', code: 'webhook_not_configured' });
      }
    });
  });

  describe('test.ping', () => {
    it('makes one real signed delivery, also while disabled, and logs it', async () => {
      const { token, keyId, secret } = await configured(false);
      const response = await server.api.post(path(keyId, '/test'), { token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        delivered: true,
        status_code: 200,
        duration_ms: expect.any(Number),
        event_id: expect.stringMatching(/^evt_/),
      });
      const requests = requestsFor(response.body.event_id);
      expect(requests).toHaveLength(1);
      const request = requests[0]!;
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('Roomstage-Webhooks/1');
      expect(request.headers['x-webhook-event']).toBe('test.ping');
      expect(request.headers['x-webhook-timestamp']).toMatch(/^\d+$/);
      expect(request.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(independentlyVerified(secret, request)).toBe(true);
      expect(receiver.bodyOf(request)).toEqual({
        id: response.body.event_id,
        event: 'test.ping',
        timestamp: expect.stringMatching(/Z$/),
        data: { key_id: keyId, message: expect.any(String) },
      });

      const list = await server.api.get(path(keyId, '/deliveries'), { token });
      expect(list.body.deliveries).toEqual([
        {
          id: expect.stringMatching(/^whd_/),
          event_id: response.body.event_id,
          event: 'test.ping',
          status: 'delivered',
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          next_attempt_at: null,
          delivered_at: expect.stringMatching(/Z$/),
          created_at: expect.stringMatching(/Z$/),
        },
      ]);
    });

    it('reports a failing receiver with its status and error', async () => {
      const { token, keyId } = await configured();
      receiver.mode = { kind: 'fail', status: 503 };
      const response = await server.api.post(path(keyId, '/test'), { token });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ delivered: false, status_code: 503, error: 'HTTP 503' });
      const [delivery] = (await server.api.get(path(keyId, '/deliveries'), { token })).body.deliveries;
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 503, last_error: 'HTTP 503' });
    });

    it('does not follow redirects', async () => {
      const { token, keyId } = await configured();
      const target = await WebhookReceiver.start();
      try {
        receiver.mode = { kind: 'redirect', location: target.url };
        const response = await server.api.post(path(keyId, '/test'), { token });
        expect(response.body).toMatchObject({ delivered: false, status_code: 302 });
        expect(target.requests).toHaveLength(0);
      } finally {
        await target.close();
      }
    });
  });

  describe('delivery of emitted events', () => {
    it('delivers a committed event within a second, signed, with the documented headers and envelope', async () => {
      const { token, keyId, userId, secret } = await configured();
      const committedAt = Date.now();
      const [eventId] = await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: 1 });
      const [request] = await receiver
        .waitFor(() => requestsFor(eventId!).length > 0, 1_000)
        .then(() => requestsFor(eventId!));
      expect(request!.receivedAt - committedAt).toBeLessThan(1_000);
      expect(independentlyVerified(secret, request!)).toBe(true);
      expect(request!.headers['x-webhook-id']).toBe(eventId);
      expect(request!.headers['x-webhook-event']).toBe('staging.complete');
      expect(receiver.bodyOf(request!)).toMatchObject({
        id: eventId,
        event: 'staging.complete',
        data: { claim_code: 'RS-ABCD2345', style: 'modern' },
      });
      await expect
        .poll(async () => (await server.api.get(path(keyId, '/deliveries'), { token })).body.deliveries[0])
        .toMatchObject({
          event_id: eventId,
          status: 'delivered',
          attempts: 1,
          last_status_code: 200,
        });
    });

    it('sends nothing to a disabled webhook', async () => {
      const { token, keyId, userId } = await configured(false);
      const [eventId] = await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: 1 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(requestsFor(eventId!)).toHaveLength(0);
      expect((await server.api.get(path(keyId, '/deliveries'), { token })).body.deliveries).toEqual([]);
    });

    it('retries a receiver that fails twice, with the same event id on every attempt, until it is delivered', async () => {
      const { token, keyId, userId, secret } = await configured();
      receiver.failFirst(2);
      const [eventId] = await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: 1 });
      await receiver.waitFor(() => requestsFor(eventId!).some((r) => r.answeredWith === 200), 5_000);
      const attempts = requestsFor(eventId!);
      expect(attempts.map((r) => r.answeredWith)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((r) => receiver.bodyOf(r).id))).toEqual(new Set([eventId]));
      expect(attempts.every((r) => independentlyVerified(secret, r))).toBe(true);
      // The schedule is 100 ms, 200 ms (±10 %) in these tests.
      expect(attempts[1]!.receivedAt - attempts[0]!.receivedAt).toBeGreaterThanOrEqual(85);
      expect(attempts[2]!.receivedAt - attempts[1]!.receivedAt).toBeGreaterThanOrEqual(175);
      await expect
        .poll(async () => (await server.api.get(path(keyId, '/deliveries'), { token })).body.deliveries[0])
        .toMatchObject({
          status: 'delivered',
          attempts: 3,
          last_status_code: 200,
          last_error: null,
          next_attempt_at: null,
        });
    });

    it('marks a delivery failed after the last retry, shows the next attempt meanwhile, and resends it on request', async () => {
      const { token, keyId, userId } = await configured();
      receiver.mode = { kind: 'fail' };
      const [eventId] = await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: 1 });
      await receiver.waitFor(() => requestsFor(eventId!).length >= 1, 2_000);
      const deliveries = async () => (await server.api.get(path(keyId, '/deliveries'), { token })).body.deliveries;
      await expect
        .poll(async () => (await deliveries())[0])
        .toMatchObject({ status: 'pending', last_status_code: 500, next_attempt_at: expect.any(String) });
      // 1 attempt + 3 retries (WEBHOOK_RETRY_DELAYS=100ms,200ms,300ms).
      await expect
        .poll(async () => (await deliveries())[0], { timeout: 5_000 })
        .toMatchObject({
          status: 'failed',
          attempts: 4,
          last_status_code: 500,
          last_error: 'HTTP 500',
          next_attempt_at: null,
        });
      expect(requestsFor(eventId!)).toHaveLength(4);

      receiver.mode = { kind: 'ok' };
      const [failed] = await deliveries();
      const retried = await server.api.post(path(keyId, `/deliveries/${failed.id}/retry`), { token });
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({
        id: failed.id,
        event_id: eventId,
        status: expect.stringMatching(/pending|delivered/),
      });
      await expect
        .poll(async () => (await deliveries())[0])
        .toMatchObject({ status: 'delivered', attempts: 5, last_status_code: 200 });
      expect(requestsFor(eventId!).at(-1)!.answeredWith).toBe(200);
    });

    it('answers 404 for an unknown delivery id', async () => {
      const { token, keyId } = await configured();
      const response = await server.api.post(path(keyId, '/deliveries/whd_doesnotexist/retry'), { token });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });

    it('limits the delivery list with ?limit', async () => {
      const { token, keyId, userId } = await configured();
      await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: 3 });
      expect((await server.api.get(path(keyId, '/deliveries?limit=2'), { token })).body.deliveries).toHaveLength(2);
      expect((await server.api.get(path(keyId, '/deliveries?limit=0'), { token })).status).toBe(400);
    });
  });
});

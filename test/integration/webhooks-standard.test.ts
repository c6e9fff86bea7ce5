import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { type ReceivedRequest, WebhookReceiver } from '../helpers/receiver.js';
import { useTestServer } from '../helpers/server.js';
import { emitStagingEvents, independentlyVerified } from '../helpers/webhooks.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The three Standard Webhooks headers of a received request, as the library wants them. */
function standardHeaders(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

/** The spec's recipe, written out independently of the server and of the library. */
function expectedStandardSignature(secret: string, request: ReceivedRequest): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody.toString('utf8')}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

describeEachDatabase('Standard Webhooks signatures and receiver signals', (dialect) => {
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
  });

  const path = (keyId: number, rest = '') => `/api/v1/keys/${keyId}/webhook${rest}`;
  const requestsFor = (eventId: string) => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);
  const deliveryOf = (eventId: string) =>
    server.services.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .executeTakeFirstOrThrow();

  async function configured() {
    const account = await signUpWithKey(server.api);
    const put = await server.api.put(path(account.keyId), {
      token: account.token,
      json: { url: receiver.url, enabled: true },
    });
    expect(put.status).toBe(200);
    return { ...account, secret: put.body.secret as string };
  }

  async function emitOne(account: { userId: string; keyId: number }) {
    const [eventId] = await emitStagingEvents(server.services.db, {
      accountId: account.userId,
      keyId: account.keyId,
      count: 1,
    });
    return eventId!;
  }

  it('signs worker deliveries and test pings so the standardwebhooks library and the sha256= recipe both verify them', async () => {
    const account = await configured();
    const ping = await server.api.post(path(account.keyId, '/test'), { token: account.token });
    const eventId = await emitOne(account);
    await receiver.waitFor(() => requestsFor(eventId).length === 1);

    for (const request of [...requestsFor(ping.body.event_id), ...requestsFor(eventId)]) {
      const body = request.rawBody.toString('utf8');
      expect(request.headers['webhook-id']).toBe(JSON.parse(body).id);
      expect(request.headers['webhook-id']).toBe(request.headers['x-webhook-id']);
      expect(Number(request.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(new Webhook(account.secret).verify(body, standardHeaders(request))).toEqual(JSON.parse(body));
      expect(request.headers['webhook-signature']).toBe(expectedStandardSignature(account.secret, request));
      expect(independentlyVerified(account.secret, request)).toBe(true);
      // Another secret, or a body changed by one byte, does not verify.
      expect(() =>
        new Webhook(`whsec_${Buffer.from('another secret entirely!').toString('base64')}`).verify(
          body,
          standardHeaders(request),
        ),
      ).toThrow();
      expect(() => new Webhook(account.secret).verify(body.replace('"', ' "'), standardHeaders(request))).toThrow();
    }
  });

  it('signs with both secrets for 24 hours after a rotation (X-Webhook-Signature with the new one), then with the new one only', async () => {
    const account = await configured();
    const rotated = await server.api.post(path(account.keyId, '/rotate-secret'), { token: account.token });
    const newSecret: string = rotated.body.secret;
    expect(newSecret).not.toBe(account.secret);

    const ping = await server.api.post(path(account.keyId, '/test'), { token: account.token });
    const eventId = await emitOne(account);
    await receiver.waitFor(() => requestsFor(eventId).length === 1);
    for (const request of [...requestsFor(ping.body.event_id), ...requestsFor(eventId)]) {
      const body = request.rawBody.toString('utf8');
      const signatures = String(request.headers['webhook-signature']).split(' ');
      expect(signatures).toEqual([
        expectedStandardSignature(newSecret, request),
        expectedStandardSignature(account.secret, request),
      ]);
      // A receiver still holding the old secret and one that already switched both accept the delivery.
      expect(new Webhook(newSecret).verify(body, standardHeaders(request))).toEqual(JSON.parse(body));
      expect(new Webhook(account.secret).verify(body, standardHeaders(request))).toEqual(JSON.parse(body));
      expect(independentlyVerified(newSecret, request)).toBe(true);
      expect(independentlyVerified(account.secret, request)).toBe(false);
    }

    server.clock.advance(DAY_MS + 60_000);
    try {
      const later = await server.api.post(path(account.keyId, '/test'), { token: account.token });
      const [request] = requestsFor(later.body.event_id);
      expect(request!.headers['webhook-signature']).toBe(expectedStandardSignature(newSecret, request!));
      expect(independentlyVerified(newSecret, request!)).toBe(true);
    } finally {
      // The library checks timestamps against real time: later tests need the clock back.
      server.clock.advance(-(DAY_MS + 60_000));
    }
  });

  it('signs a retry of an event written before a rotation with the secrets current when it is sent', async () => {
    const account = await configured();
    receiver.mode = { kind: 'fail', status: 500 };
    const eventId = await emitOne(account);
    await receiver.waitFor(() => requestsFor(eventId).length === 1);
    const rotated = await server.api.post(path(account.keyId, '/rotate-secret'), { token: account.token });
    receiver.mode = { kind: 'ok' };
    await receiver.waitFor(() => requestsFor(eventId).some((r) => r.answeredWith === 200));
    const [first, ...retries] = requestsFor(eventId);
    expect(first!.headers['webhook-signature']).toBe(expectedStandardSignature(account.secret, first!));
    const delivered = retries.find((r) => r.answeredWith === 200)!;
    // The stored bytes are the same; the signatures are new.
    expect(delivered.rawBody.equals(first!.rawBody)).toBe(true);
    expect(
      new Webhook(rotated.body.secret).verify(delivered.rawBody.toString('utf8'), standardHeaders(delivered)),
    ).toBeTruthy();
    expect(independentlyVerified(rotated.body.secret, delivered)).toBe(true);
  });

  it('switches the webhook off when the receiver answers 410 Gone, says why, and stops sending', async () => {
    const account = await configured();
    receiver.mode = { kind: 'fail', status: 410 };
    const eventId = await emitOne(account);
    await receiver.waitFor(() => requestsFor(eventId).length === 1);
    // Without the 410 rule the 100/200/300 ms retries would all have come by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(requestsFor(eventId)).toHaveLength(1);
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_status_code: 410,
      next_attempt_at: null,
    });

    const webhook = await server.api.get(path(account.keyId), { token: account.token });
    expect(webhook.body).toMatchObject({
      enabled: false,
      url: receiver.url,
      disabled_reason: expect.stringMatching(/410 Gone/),
    });
    const webhookPage = async () =>
      (await dashboardPage(server.url, `/keys/${account.keyId}/webhook`, account.token)).html;
    expect(await webhookPage()).toContain('Switched off by Roomstage');
    expect(await webhookPage()).toContain(webhook.body.disabled_reason);
    const later = await emitOne(account);
    receiver.mode = { kind: 'ok' };
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsFor(later)).toHaveLength(0);

    const saved = await server.api.put(path(account.keyId), {
      token: account.token,
      json: { url: receiver.url, enabled: true },
    });
    expect(saved.body).toMatchObject({ enabled: true, disabled_reason: null });
    expect(await webhookPage()).not.toContain('Switched off by Roomstage');
  });

  it('waits as long as a 503 answer’s Retry-After asks before the next attempt', async () => {
    const account = await configured();
    receiver.mode = { kind: 'fail', status: 503, headers: { 'retry-after': '2' } };
    const eventId = await emitOne(account);
    const [first] = await receiver.waitFor(() => requestsFor(eventId).length === 1).then(() => requestsFor(eventId));
    receiver.mode = { kind: 'ok' };
    await receiver.waitFor(() => requestsFor(eventId).length === 2, 10_000);
    const second = requestsFor(eventId)[1]!;
    expect(second.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1_900);
    await expect.poll(async () => (await deliveryOf(eventId)).status).toBe('delivered');
  });

  it('bounds a 429 answer’s Retry-After to 24 hours, and uses the schedule when there is none', async () => {
    const account = await configured();
    receiver.mode = { kind: 'fail', status: 429, headers: { 'retry-after': String(30 * 24 * 3600) } };
    const bounded = await emitOne(account);
    await expect.poll(async () => (await deliveryOf(bounded)).attempts).toBe(1);
    const waitMs = (await deliveryOf(bounded)).next_attempt_at! - server.clock.now();
    expect(waitMs).toBeGreaterThan(DAY_MS - 60_000);
    expect(waitMs).toBeLessThanOrEqual(DAY_MS);

    receiver.mode = { kind: 'fail', status: 429 };
    const plain = await emitOne(account);
    await receiver.waitFor(() => requestsFor(plain).length >= 2, 5_000);
  });
});

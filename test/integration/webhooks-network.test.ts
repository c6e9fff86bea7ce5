import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isPrivateAddress } from '../../server/outbound/network-guard.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { useTestServer } from '../helpers/server.js';

describeEachDatabase('Webhook urls and private networks (ALLOW_PRIVATE_NETWORK=false)', (dialect) => {
  const server = useTestServer(dialect, { env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('refuses loopback, private, link-local and metadata targets, and names that resolve to them', async () => {
    const { token, keyId } = await signUpWithKey(server.api);
    // This machine's own name resolves to a loopback address (/etc/hosts): a host name, not an IP, that must be refused.
    const ownName = hostname();
    const ownAddresses = await lookup(ownName, { all: true });
    expect(ownAddresses.some((a) => isPrivateAddress(a.address))).toBe(true);
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.0.0.8/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      `http://${ownName}:3000/hook`,
      receiver.url,
    ]) {
      const response = await server.api.put(`/api/v1/keys/${keyId}/webhook`, { token, json: { url, enabled: true } });
      expect(response.status, url).toBe(400);
      expect(response.body).toMatchObject({
        error: 'invalid request',
        code: 'invalid_request',
        details: [{ path: 'url', message: expect.any(String) }],
      });
    }
    expect((await server.api.get(`/api/v1/keys/${keyId}/webhook`, { token })).body.url).toBeNull();
  });

  it('accepts a public address', async () => {
    const { token, keyId } = await signUpWithKey(server.api);
    const response = await server.api.put(`/api/v1/keys/${keyId}/webhook`, {
      token,
      json: { url: 'https://93.184.215.14/hooks', enabled: true },
    });
    expect(response.status).toBe(200);
  });

  it('checks the target again when sending: a url that became private is not contacted', async () => {
    const { token, keyId } = await signUpWithKey(server.api);
    await server.api.put(`/api/v1/keys/${keyId}/webhook`, {
      token,
      json: { url: 'https://93.184.215.14/hooks', enabled: true },
    });
    // As if DNS or the stored row changed after the check.
    await server.services.db.updateTable('webhooks').set({ url: receiver.url }).where('key_id', '=', keyId).execute();
    const ping = await server.api.post(`/api/v1/keys/${keyId}/webhook/test`, { token });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({
      delivered: false,
      status_code: null,
      error: expect.stringMatching(/private|loopback/),
    });
    expect(receiver.requests).toHaveLength(0);
  });
});

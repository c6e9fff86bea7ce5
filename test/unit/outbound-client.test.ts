import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError, PrivateAddressError, readLimited, sendOutbound } from '../../server/outbound/client.js';

describe('The outbound HTTP client', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.end('x'.repeat(1000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (host: string, allowPrivateNetwork: boolean) =>
    sendOutbound(
      new URL(`http://${host}:${port}/`),
      { allowPrivateNetwork },
      { method: 'GET', headers: {}, signal: AbortSignal.timeout(5_000) },
    );

  it('refuses a loopback IP literal at connect time, without any request reaching it', async () => {
    const before = hits;
    await expect(get('127.0.0.1', false)).rejects.toBeInstanceOf(PrivateAddressError);
    expect(hits).toBe(before);
  });

  it('refuses a name whose DNS answer at connect time is loopback (no earlier check is trusted)', async () => {
    const before = hits;
    await expect(get('localhost', false)).rejects.toBeInstanceOf(PrivateAddressError);
    expect(hits).toBe(before);
  });

  it('connects to private addresses when the operator allows them', async () => {
    const response = await get('127.0.0.1', true);
    expect(response.statusCode).toBe(200);
    expect((await readLimited(response, 10_000)).length).toBe(1000);
  });

  it('stops reading a body past its size limit', async () => {
    const response = await get('localhost', true);
    await expect(readLimited(response, 100)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

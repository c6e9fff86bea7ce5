import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BodyTooLargeError,
  PrivateAddressError,
  readLimited,
  requestDeadline,
  sendOutbound,
} from '../../server/outbound/client.js';

describe('The outbound HTTP client', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      // A receiver that never answers, for the deadline.
      if (req.url === '/hang') return;
      res.end('x'.repeat(1000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

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

  it('ends a request that gets no answer when its requestDeadline expires, and says it expired', async () => {
    const deadline = requestDeadline(150);
    const started = Date.now();
    const sent = sendOutbound(
      new URL(`http://localhost:${port}/hang`),
      { allowPrivateNetwork: true },
      { method: 'POST', headers: {}, body: '{}', signal: deadline.signal },
    );
    await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
    expect(deadline.expired).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('lets a request that answers in time finish, and its cleared deadline never fires', async () => {
    const deadline = requestDeadline(100);
    const response = await sendOutbound(
      new URL(`http://localhost:${port}/`),
      { allowPrivateNetwork: true },
      { method: 'POST', headers: {}, body: '{}', signal: deadline.signal },
    );
    deadline.clear();
    await response.body.dump();
    let fired = false;
    deadline.signal.on('abort', () => {
      fired = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fired).toBe(false);
    expect(deadline.expired).toBe(false);
  });
});

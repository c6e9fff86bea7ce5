import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServer } from '../../server/http/app-server.js';

describe('createAppServer', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('constructs requests and responses on the app’s prototypes, which Express then leaves alone', async () => {
    const app = express();
    app.set('etag', false);
    const seen: Record<string, unknown> = {};
    app.get('/echo/:name', (req, res) => {
      seen.requestPrototypeInHandler = Object.getPrototypeOf(req);
      seen.responsePrototypeInHandler = Object.getPrototypeOf(res);
      res
        .status(201)
        .json({ name: req.params.name, host: req.hostname, accepts: req.accepts('json'), app: req.app === app });
    });
    const server = createAppServer(app);
    // Runs before Express's own listener: what the server constructed, before expressInit could touch it.
    server.prependListener('request', (req, res) => {
      seen.requestPrototypeAtArrival = Object.getPrototypeOf(req);
      seen.responsePrototypeAtArrival = Object.getPrototypeOf(res);
      seen.nodeClasses = req instanceof IncomingMessage && res instanceof ServerResponse;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;

    const response = await fetch(`http://127.0.0.1:${port}/echo/kitchen`, { headers: { accept: 'application/json' } });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ name: 'kitchen', host: '127.0.0.1', accepts: 'json', app: true });
    expect(seen.requestPrototypeAtArrival).toBe(app.request);
    expect(seen.responsePrototypeAtArrival).toBe(app.response);
    expect(seen.requestPrototypeInHandler).toBe(app.request);
    expect(seen.responsePrototypeInHandler).toBe(app.response);
    expect(seen.nodeClasses).toBe(true);
  });
});

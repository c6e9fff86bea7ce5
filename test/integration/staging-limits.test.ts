import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import {
  dataUrl,
  gifImage,
  imageForm,
  oversizeJpegLike,
  roomJpeg,
  sixtyMegapixelPng,
  storedFiles,
  textFile,
  truncatedJpeg,
} from '../fixtures/images.js';
import { creditsOf, startImagingServer, useImagingServer } from '../helpers/staging.js';

const MB = 1024 * 1024;

/** A local origin for image_url downloads: /photo.jpg, /missing, /huge (20 MB streamed), /slow (never answers). */
async function startImageOrigin(photo: Buffer) {
  const server: Server = createServer((req, res) => {
    if (req.url === '/photo.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (req.url === '/redirect') return res.writeHead(302, { location: '/photo.jpg' }).end();
    if (req.url === '/huge') {
      // No Content-Length: the limit must hold while streaming.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = oversizeJpegLike(MB);
      let sent = 0;
      const pump = () => {
        while (sent < 20 && res.write(chunk)) sent++;
        if (sent >= 20) res.end();
        else
          res.once('drain', () => {
            sent++;
            pump();
          });
      };
      res.on('error', () => {});
      return pump();
    }
    if (req.url === '/slow') return; // never answers
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

describeEachDatabase('Image input limits: bad and hostile images never charge and never store', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  let origin: Awaited<ReturnType<typeof startImageOrigin>>;
  beforeAll(async () => {
    photo = await roomJpeg(800, 600);
    origin = await startImageOrigin(photo);
  });
  afterAll(async () => {
    await origin?.close();
  });

  /** Sends `send` with a fresh account and checks: the status and code, balance still 10, no image row, no new file. */
  async function refused(send: (key: string) => Promise<{ status: number; body: any }>, status: number, code: string) {
    const account = await signUpWithKey(server.api);
    const filesBefore = storedFiles(server).length;
    const response = await send(account.key);
    expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
    expect(response.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect(await creditsOf(server.api, account.key)).toBe(10);
    const rows = await server.services.db
      .selectFrom('images')
      .select('id')
      .where('account_id', '=', account.userId)
      .execute();
    expect(rows).toHaveLength(0);
    const ledger = await server.services.db
      .selectFrom('credit_ledger')
      .select('reason')
      .where('account_id', '=', account.userId)
      .execute();
    expect(ledger.map((r) => r.reason)).toEqual(['signup_bonus']);
    expect(storedFiles(server).length).toBe(filesBefore);
    return response;
  }

  const stageForm =
    (file: Buffer, name = 'room.jpg', type = 'image/jpeg') =>
    (key: string) =>
      server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: file, name, type }]) });
  const stageJson = (body: unknown) => (key: string) => server.api.post('/api/v1/stage', { token: key, json: body });

  describe('422 invalid_image', () => {
    it('refuses a truncated JPEG (multipart and JSON)', async () => {
      const cut = await truncatedJpeg();
      await refused(stageForm(cut), 422, 'invalid_image');
      await refused(stageJson({ image: cut.toString('base64') }), 422, 'invalid_image');
      await refused(
        (key) => server.api.post('/api/v1/enhance', { token: key, body: imageForm([{ data: cut }]) }),
        422,
        'invalid_image',
      );
    });

    it('refuses a text file renamed .png', async () => {
      await refused(stageForm(textFile(), 'room.png', 'image/png'), 422, 'invalid_image');
      await refused(stageJson({ image: dataUrl(textFile(), 'image/png') }), 422, 'invalid_image');
    });

    it('refuses a 60-megapixel decompression bomb without decoding it', async () => {
      const bomb = await sixtyMegapixelPng();
      const started = Date.now();
      const response = await refused(stageForm(bomb, 'bomb.png', 'image/png'), 422, 'invalid_image');
      expect(response.body.message).toMatch(/megapixel|px/);
      expect(Date.now() - started).toBeLessThan(3_000);
      await refused(
        (key) =>
          server.api.post('/api/v1/place-products', {
            token: key,
            body: imageForm([{ data: bomb, name: 'b.png', type: 'image/png' }]),
          }),
        422,
        'invalid_image',
      );
    });

    it('refuses images under 200 px a side', async () => {
      await refused(stageJson({ image: (await roomJpeg(150, 400)).toString('base64') }), 422, 'invalid_image');
    });

    it('refuses one bad image among good ones, charging nothing for the good ones', async () => {
      await refused(
        (key) =>
          server.api.post('/api/v1/stage', {
            token: key,
            body: imageForm([{ data: photo }, { data: textFile() }, { data: photo }]),
          }),
        422,
        'invalid_image',
      );
    });
  });

  describe('413 payload_too_large', () => {
    it('refuses a 20 MB multipart upload', async () => {
      await refused(stageForm(oversizeJpegLike(20 * MB)), 413, 'payload_too_large');
    });

    it('refuses a 20 MB image sent as base64 JSON', async () => {
      await refused(stageJson({ image: oversizeJpegLike(20 * MB).toString('base64') }), 413, 'payload_too_large');
    });

    it('refuses more than 10 images in one request', async () => {
      const eleven = Array.from({ length: 11 }, () => ({ data: photo }));
      await refused(
        (key) => server.api.post('/api/v1/stage', { token: key, body: imageForm(eleven) }),
        413,
        'payload_too_large',
      );
      await refused(stageJson({ images: eleven.map((f) => f.data.toString('base64')) }), 413, 'payload_too_large');
    });

    it('accepts ten images at once', async () => {
      const account = await signUpWithKey(server.api);
      const small = await roomJpeg(300, 240);
      const response = await server.api.post('/api/v1/stage', {
        token: account.key,
        json: { images: Array.from({ length: 10 }, () => small.toString('base64')) },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ credits_used: 10, credits_remaining: 0 });
    });

    it('keeps the 1 MB body limit on other /api paths', async () => {
      const account = await signUpWithKey(server.api);
      const response = await server.api.put(`/api/v1/keys/${account.keyId}/webhook`, {
        token: account.token,
        json: { url: `https://example.com/${'a'.repeat(2 * MB)}`, enabled: true },
      });
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('payload_too_large');
    });
  });

  describe('415 unsupported_media_type', () => {
    it('refuses a GIF and a data URL that is not an image', async () => {
      await refused(stageForm(await gifImage(), 'room.gif', 'image/gif'), 415, 'unsupported_media_type');
      await refused(
        stageJson({ image: `data:text/plain;base64,${textFile().toString('base64')}` }),
        415,
        'unsupported_media_type',
      );
    });

    it('refuses a body that is neither JSON nor multipart', async () => {
      await refused(
        (key) =>
          server.api.post('/api/v1/stage', {
            token: key,
            body: new Uint8Array(photo),
            headers: { 'content-type': 'image/jpeg' },
          }),
        415,
        'unsupported_media_type',
      );
    });
  });

  describe('400 invalid_request', () => {
    it('refuses text that is not base64, a file in another field, and a malformed form', async () => {
      await refused(stageJson({ image: 'this is *not* base64!' }), 400, 'invalid_request');
      await refused(
        (key) => server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }], {}, 'photo') }),
        400,
        'invalid_request',
      );
      await refused(
        (key) =>
          server.api.post('/api/v1/stage', {
            token: key,
            body: '--x\r\nContent-Disposition: form-data; name="image"\r\n\r\nabc',
            headers: { 'content-type': 'multipart/form-data; boundary=x' },
          }),
        400,
        'invalid_request',
      );
    });
  });

  describe('image_url', () => {
    it('downloads an image (following a redirect) and stages it', async () => {
      const account = await signUpWithKey(server.api);
      const direct = await server.api.post('/api/v1/stage', {
        token: account.key,
        json: { image_url: `${origin.url}/photo.jpg` },
      });
      expect(direct.status).toBe(200);
      expect(direct.body.images[0]).toMatchObject({ width: 800, height: 600 });
      const redirected = await server.api.post('/api/v1/enhance', {
        token: account.key,
        body: imageForm([], { image_url: `${origin.url}/redirect` }),
      });
      expect(redirected.status).toBe(200);
      expect(redirected.body.width).toBe(3840);
    });

    it('refuses a URL that does not answer with an image, a non-http scheme, and a download over 15 MB', async () => {
      await refused(stageJson({ image_url: `${origin.url}/missing` }), 422, 'invalid_image');
      await refused(stageJson({ image_url: 'ftp://example.com/room.jpg' }), 400, 'invalid_request');
      await refused(stageJson({ image_url: 'not a url' }), 400, 'invalid_request');
      await refused(stageJson({ image_url: `${origin.url}/huge` }), 413, 'payload_too_large');
    });

    it('gives up on a download that takes more than 10 s', async () => {
      const started = Date.now();
      await refused(stageJson({ image_url: `${origin.url}/slow` }), 422, 'invalid_image');
      expect(Date.now() - started).toBeLessThan(15_000);
    }, 20_000);

    it('refuses loopback and private addresses unless ALLOW_PRIVATE_NETWORK=true', async () => {
      const strict = await startImagingServer(dialect, {
        database: { url: server.databaseUrl, drop: async () => {} },
        env: { ALLOW_PRIVATE_NETWORK: 'false' },
      });
      try {
        const account = await signUpWithKey(strict.api);
        for (const url of [
          `${origin.url}/photo.jpg`,
          'http://localhost/photo.jpg',
          'http://10.0.0.8/a.jpg',
          'http://169.254.169.254/latest/meta-data',
          'http://[::1]/a.jpg',
        ]) {
          const response = await strict.api.post('/api/v1/stage', { token: account.key, json: { image_url: url } });
          expect({ url, status: response.status }).toEqual({ url, status: 400 });
          expect(response.body.details[0].path).toBe('image_url');
        }
        expect(await creditsOf(strict.api, account.key)).toBe(10);
      } finally {
        await strict.close();
      }
    });
  });
});

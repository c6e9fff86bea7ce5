import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { dataUrl, fetchImage, imageForm, roomJpeg, roomPng } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';

describeEachDatabase('Staging, enhancing and placing products over HTTP', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(1000, 700);
  });

  describe('stage', () => {
    it('stages a multipart upload (curl -F) and keeps the input size', async () => {
      const { key } = await signUpWithKey(server.api);
      const response = await server.api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: photo }], { style: 'scandinavian', room_type: 'bedroom' }),
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        claim_code: expect.stringMatching(/^RS-[0-9A-HJKMNP-TV-Z]{8}$/),
        image_url: response.body.images[0].image_url,
        images: [
          {
            id: expect.stringMatching(/^img_/),
            image_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:1\/images\/img_\w+\.jpg$/),
            width: 1000,
            height: 700,
            variation: 0,
            seed: expect.any(Number),
            original_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:1\/o\/\w+$/),
            disclosure_caption: expect.stringMatching(
              /^Virtually staged: .* Original photo: http:\/\/127\.0\.0\.1:1\/o\//,
            ),
            fidelity: expect.any(Number),
            changes: [],
          },
        ],
        style: 'scandinavian',
        room_type: 'bedroom',
        credits_used: 1,
        credits_remaining: 9,
        expires_at: expect.stringMatching(/Z$/),
        disclosure: 'caption',
        original_url: response.body.images[0].original_url,
        disclosure_caption: response.body.images[0].disclosure_caption,
      });
      expect(response.body.images[0].fidelity).toBeGreaterThanOrEqual(0.9);
      const created = Date.now();
      expect(Date.parse(response.body.expires_at) - created).toBeGreaterThan(30 * 86_400_000 - 60_000);
      const served = await fetchImage(server, response.body.image_url);
      expect(served.response.status).toBe(200);
      expect(served.metadata).toMatchObject({ width: 1000, height: 700, format: 'jpeg' });
      expect(await creditsOf(server.api, key)).toBe(9);
    });

    it('stages JSON with base64, with a data URL and with defaults (modern, living_room)', async () => {
      const { key } = await signUpWithKey(server.api);
      const plain = await server.api.post('/api/v1/stage', { token: key, json: { image: photo.toString('base64') } });
      expect(plain.status).toBe(200);
      expect(plain.body).toMatchObject({
        style: 'modern',
        room_type: 'living_room',
        credits_used: 1,
        credits_remaining: 9,
      });
      const png = await roomPng(640, 480);
      const fromDataUrl = await server.api.post('/api/v1/stage', {
        token: key,
        json: { image: dataUrl(png, 'image/png'), style: 'industrial' },
      });
      expect(fromDataUrl.status).toBe(200);
      expect(fromDataUrl.body.images[0]).toMatchObject({ width: 640, height: 480 });
      expect(fromDataUrl.body.claim_code).not.toBe(plain.body.claim_code);
    });

    it('stages several images in one request: one claim, one credit each', async () => {
      const { key } = await signUpWithKey(server.api);
      const second = await roomJpeg(600, 900);
      const multipart = await server.api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: photo }, { data: second }]),
      });
      expect(multipart.status).toBe(200);
      expect(multipart.body.images.map((i: { width: number; height: number }) => [i.width, i.height])).toEqual([
        [1000, 700],
        [600, 900],
      ]);
      expect(multipart.body).toMatchObject({ credits_used: 2, credits_remaining: 8 });
      const json = await server.api.post('/api/v1/stage', {
        token: key,
        json: { images: [photo.toString('base64'), dataUrl(second), photo.toString('base64')] },
      });
      expect(json.status).toBe(200);
      expect(json.body).toMatchObject({ credits_used: 3, credits_remaining: 5 });
      expect(json.body.image_url).toBe(json.body.images[0].image_url);
      expect(new Set(json.body.images.map((i: { id: string }) => i.id)).size).toBe(3);
    });

    it('serves image URLs without credentials, with the content type and long cache headers, and unguessable names', async () => {
      const { key } = await signUpWithKey(server.api);
      const staged = await server.api.post('/api/v1/stage', { token: key, json: { image: photo.toString('base64') } });
      const { response, bytes } = await fetchImage(server, staged.body.image_url);
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
      const name = new URL(staged.body.image_url).pathname.split('/').pop()!;
      expect(name.startsWith(staged.body.images[0].id)).toBe(true);
      expect(name.length).toBeGreaterThan(staged.body.images[0].id.length + 16);
      // The id alone, or a made-up name, finds nothing.
      expect((await fetch(new URL(`/images/${staged.body.images[0].id}.jpg`, server.url))).status).toBe(404);
      expect((await fetch(new URL('/images/..%2F..%2Fetc%2Fpasswd', server.url))).status).toBe(404);
    });

    it('lists the styles and room types without credentials', async () => {
      const response = await server.api.get('/api/v1/styles');
      expect(response.status).toBe(200);
      expect(response.body.styles).toEqual([
        'modern',
        'scandinavian',
        'industrial',
        'minimalist',
        'mid_century',
        'coastal',
        'farmhouse',
        'luxury',
        'bohemian',
        'traditional',
      ]);
      expect(response.body.room_types).toEqual([
        'living_room',
        'bedroom',
        'dining_room',
        'kitchen',
        'office',
        'bathroom',
        'kids_room',
        'outdoor',
      ]);
    });

    it('rejects an unknown style or room type with 400 and charges nothing', async () => {
      const { key } = await signUpWithKey(server.api);
      const badStyle = await server.api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: photo }], { style: 'baroque' }),
      });
      expect(badStyle.status).toBe(400);
      expect(badStyle.body).toMatchObject({
        code: 'invalid_request',
        details: [expect.objectContaining({ path: 'style' })],
      });
      const badRoom = await server.api.post('/api/v1/stage', {
        token: key,
        json: { image: photo.toString('base64'), room_type: 'garage' },
      });
      expect(badRoom.status).toBe(400);
      const none = await server.api.post('/api/v1/stage', { token: key, json: { style: 'modern' } });
      expect(none.status).toBe(400);
      expect(none.body.details[0].path).toBe('image');
      const both = await server.api.post('/api/v1/stage', {
        token: key,
        json: { image: photo.toString('base64'), image_url: 'https://example.com/a.jpg' },
      });
      expect(both.status).toBe(400);
      expect(await creditsOf(server.api, key)).toBe(10);
    });

    it('needs an API key: no key, an identity token or a revoked key is 401', async () => {
      const account = await signUpWithKey(server.api);
      const anonymous = await server.api.post('/api/v1/stage', { body: imageForm([{ data: photo }]) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'authentication_required', error: 'authentication required' });
      expect(
        (await server.api.post('/api/v1/stage', { token: account.token, json: { image: photo.toString('base64') } }))
          .status,
      ).toBe(401);
      // A big upload without a key is answered 401 without being read into memory.
      const big = await server.api.post('/api/v1/stage', {
        body: imageForm(Array.from({ length: 10 }, () => ({ data: photo }))),
      });
      expect(big.status).toBe(401);
      await server.api.delete(`/api/v1/keys/${account.keyId}`, { token: account.token });
      expect(
        (await server.api.post('/api/v1/enhance', { token: account.key, body: imageForm([{ data: photo }]) })).status,
      ).toBe(401);
    });
  });

  describe('enhance', () => {
    it('enhances to a 3840 px long edge keeping the aspect ratio, for 1 credit (multipart and JSON)', async () => {
      const { key } = await signUpWithKey(server.api);
      const landscape = await server.api.post('/api/v1/enhance', { token: key, body: imageForm([{ data: photo }]) });
      expect(landscape.status).toBe(200);
      expect(landscape.body).toEqual({
        success: true,
        image_url: expect.any(String),
        width: 3840,
        height: 2688,
        credits_used: 1,
        credits_remaining: 9,
      });
      const served = await fetchImage(server, landscape.body.image_url);
      expect(served.metadata).toMatchObject({ width: 3840, height: 2688 });

      const portrait = await server.api.post('/api/v1/enhance', {
        token: key,
        json: { image: dataUrl(await roomJpeg(600, 900)) },
      });
      expect(portrait.status).toBe(200);
      expect(portrait.body).toMatchObject({ width: 2560, height: 3840, credits_remaining: 8 });
      const decoded = await sharp((await fetchImage(server, portrait.body.image_url)).bytes).metadata();
      expect(Math.max(decoded.width!, decoded.height!)).toBe(3840);
    });

    it('takes one image only', async () => {
      const { key } = await signUpWithKey(server.api);
      const two = await server.api.post('/api/v1/enhance', {
        token: key,
        body: imageForm([{ data: photo }, { data: photo }]),
      });
      expect(two.status).toBe(400);
      const images = await server.api.post('/api/v1/enhance', {
        token: key,
        json: { images: [photo.toString('base64')] },
      });
      expect(images.status).toBe(400);
      expect(await creditsOf(server.api, key)).toBe(10);
    });
  });

  describe('place-products', () => {
    it('places sponsored products for free in an uploaded image, up to max_products (a text field)', async () => {
      const { key } = await signUpWithKey(server.api);
      const response = await server.api.post('/api/v1/place-products', {
        token: key,
        body: imageForm([{ data: photo }], { max_products: '2', room_type: 'living_room' }),
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ success: true, credits_used: 0, credits_remaining: 10 });
      expect(response.body.placements.length).toBeGreaterThan(0);
      expect(response.body.placements.length).toBeLessThanOrEqual(2);
      for (const placement of response.body.placements) {
        expect(placement).toEqual({
          product_id: expect.stringMatching(/^prd_/),
          name: expect.any(String),
          brand: expect.any(String),
          category: expect.any(String),
          x: expect.any(Number),
          y: expect.any(Number),
          width: expect.any(Number),
          height: expect.any(Number),
          campaign_id: null,
          sponsored: false,
        });
        expect(placement.x + placement.width).toBeLessThanOrEqual(1000);
        expect(placement.y + placement.height).toBeLessThanOrEqual(700);
      }
      const served = await fetchImage(server, response.body.image_url);
      expect(served.metadata).toMatchObject({ width: 1000, height: 700 });
    });

    it('places products in an image this account staged, by image_id, picking products that suit the room', async () => {
      const { key } = await signUpWithKey(server.api);
      const staged = await server.api.post('/api/v1/stage', {
        token: key,
        json: { image: photo.toString('base64'), room_type: 'kitchen' },
      });
      const placed = await server.api.post('/api/v1/place-products', {
        token: key,
        json: { image_id: staged.body.images[0].id, max_products: 5 },
      });
      expect(placed.status).toBe(200);
      const rows = await server.services.db.selectFrom('products').selectAll().execute();
      const kitchen = new Set(rows.filter((p) => p.room_types.split(',').includes('kitchen')).map((p) => p.id));
      for (const placement of placed.body.placements) expect(kitchen.has(placement.product_id)).toBe(true);
      expect(placed.body.credits_remaining).toBe(9);
      const image = await server.services.db
        .selectFrom('images')
        .selectAll()
        .where('storage_name', '=', new URL(placed.body.image_url).pathname.split('/').pop()!)
        .executeTakeFirstOrThrow();
      expect(image).toMatchObject({ kind: 'placed', source_image_id: staged.body.images[0].id, room_type: 'kitchen' });
    });

    it('answers 404 for an image_id of another account and 400 for max_products out of 1–5', async () => {
      const owner = await signUpWithKey(server.api);
      const stranger = await signUpWithKey(server.api);
      const staged = await server.api.post('/api/v1/stage', {
        token: owner.key,
        json: { image: photo.toString('base64') },
      });
      const foreign = await server.api.post('/api/v1/place-products', {
        token: stranger.key,
        json: { image_id: staged.body.images[0].id },
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not_found');
      for (const max of [0, 6, 'many']) {
        const response = await server.api.post('/api/v1/place-products', {
          token: owner.key,
          json: { image: photo.toString('base64'), max_products: max },
        });
        expect(response.status).toBe(400);
      }
    });
  });

  it('describes the multipart form in the OpenAPI document, with image as a binary file', async () => {
    const document = (await server.api.get('/api/v1/openapi.json')).body;
    for (const path of ['/api/v1/stage', '/api/v1/enhance', '/api/v1/place-products']) {
      const content = document.paths[path].post.requestBody.content;
      expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data']);
      expect(content['application/json'].schema.properties.image.type).toBe('string');
      const image = content['multipart/form-data'].schema.properties.image;
      expect(image.format ?? image.items.format).toBe('binary');
    }
    expect(document.paths['/api/v1/stage'].post.security).toEqual([{ apiKey: [] }]);
    expect(document.paths['/api/v1/claim'].post.security).toEqual([{ identityToken: [] }]);
    expect(document.paths['/api/v1/styles'].get.security).toEqual([]);
  });
});

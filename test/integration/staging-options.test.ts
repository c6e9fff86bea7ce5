import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { markBox } from '../../server/imaging/disclosure-mark.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { fetchImage, roomJpeg, storedFiles } from '../fixtures/images.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';

/** Variations, seeds, the disclosure label and the engine's capabilities, on the built-in engine. */
describeEachDatabase('Staging options on the built-in engine', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(640, 400);
  });

  const stage = (key: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    server.api.post('/api/v1/stage', { token: key, json: { image: photo.toString('base64'), ...fields }, headers });

  async function pixels(imageUrl: string) {
    const { bytes } = await fetchImage(server, imageUrl);
    return sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  }

  /** Mean absolute difference of two same-sized outputs inside a box. */
  async function differenceIn(
    a: string,
    b: string,
    box: { left: number; top: number; width: number; height: number },
  ): Promise<number> {
    const [first, second] = await Promise.all([pixels(a), pixels(b)]);
    let sum = 0;
    let count = 0;
    for (let y = box.top; y < box.top + box.height; y++) {
      for (let x = box.left; x < box.left + box.width; x++) {
        for (let c = 0; c < 3; c++) {
          const at = (y * first.info.width + x) * 3 + c;
          sum += Math.abs((first.data[at] ?? 0) - (second.data[at] ?? 0));
          count += 1;
        }
      }
    }
    return sum / count;
  }

  it('tells what the built-in engine can do: no declutter, up to 4 variations, the label', async () => {
    const response = await server.api.get('/api/v1/capabilities');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      engine: 'builtin',
      operations: ['stage', 'enhance', 'place_products'],
      max_variations: 4,
      declutter: false,
      label: true,
    });
    expect(response.body.styles).toContain('modern');
    expect(response.body.room_types).toContain('living_room');
  });

  it('refuses declutter with 422 unsupported_option before any charge, on stage and on /declutter', async () => {
    const account = await signUpWithKey(server.api);
    const before = storedFiles(server);
    const staged = await stage(account.key, { declutter: true });
    expect(staged.status, staged.text).toBe(422);
    expect(staged.body).toMatchObject({ code: 'unsupported_option', error: 'unsupported option', option: 'declutter' });
    const decluttered = await server.api.post('/api/v1/declutter', {
      token: account.key,
      json: { image: photo.toString('base64') },
      headers: { Prefer: 'respond-async' },
    });
    expect(decluttered.status, decluttered.text).toBe(422);
    expect(decluttered.body).toMatchObject({ code: 'unsupported_option', option: 'declutter' });
    expect(await creditsOf(server.api, account.key)).toBe(10);
    expect(storedFiles(server)).toEqual(before);
    const books = await readBooks(server.services.db, account.userId);
    expect(books.holds).toBe(0);
    expectBooksAgree(books);
  });

  it('stages 3 variations for 3 credits: three different pictures in one claim, each with its variation and seed', async () => {
    const { key } = await signUpWithKey(server.api);
    const response = await stage(key, { variations: 3, seed: 1234 });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ credits_used: 3, credits_remaining: 7 });
    const { images } = response.body as { images: Array<{ image_url: string; variation: number; seed: number }> };
    expect(images.map(({ variation, seed }) => ({ variation, seed }))).toEqual([
      { variation: 0, seed: 1234 },
      { variation: 1, seed: 1235 },
      { variation: 2, seed: 1236 },
    ]);
    const whole = { left: 0, top: 0, width: 640, height: 400 };
    expect(await differenceIn(images[0]!.image_url, images[1]!.image_url, whole)).toBeGreaterThan(3);
    expect(await differenceIn(images[1]!.image_url, images[2]!.image_url, whole)).toBeGreaterThan(3);
    expect(await differenceIn(images[0]!.image_url, images[2]!.image_url, whole)).toBeGreaterThan(3);
    const claim = await server.services.db
      .selectFrom('images')
      .select('claim_code')
      .where('claim_code', '=', response.body.claim_code)
      .execute();
    expect(claim).toHaveLength(3);
  });

  it('charges images × variations: two photos with 2 variations each cost 4 credits', async () => {
    const { key } = await signUpWithKey(server.api);
    const image = photo.toString('base64');
    const response = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [image, image], variations: 2 },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.credits_used).toBe(4);
    expect(response.body.images.map((entry: { variation: number }) => entry.variation)).toEqual([0, 1, 0, 1]);
    expect(await creditsOf(server.api, key)).toBe(6);
  });

  it('refuses 3 variations with 2 credits left: 402 and nothing spent', async () => {
    const account = await signUpWithKey(server.api);
    for (let i = 0; i < 2; i++) expect((await stage(account.key, { variations: 4 })).status).toBe(200);
    expect(await creditsOf(server.api, account.key)).toBe(2);
    const before = storedFiles(server);
    const response = await stage(account.key, { variations: 3 });
    expect(response.status, response.text).toBe(402);
    expect(response.body).toMatchObject({ code: 'insufficient_credits', credits_required: 3, credits_available: 2 });
    expect(await creditsOf(server.api, account.key)).toBe(2);
    expect(storedFiles(server)).toEqual(before);
    expectBooksAgree(await readBooks(server.services.db, account.userId));
  });

  it('draws the same picture for the same seed, and another for another seed', async () => {
    const { key } = await signUpWithKey(server.api);
    const [first, again, other] = await Promise.all([
      stage(key, { seed: 77 }),
      stage(key, { seed: 77 }),
      stage(key, { seed: 78 }),
    ]);
    const [a, b, c] = await Promise.all(
      [first, again, other].map(async (response) => (await fetchImage(server, response.body.image_url)).bytes),
    );
    expect(a!.equals(b!)).toBe(true);
    expect(a!.equals(c!)).toBe(false);
    expect(first.body.images[0].seed).toBe(77);
  });

  it('validates variations (1–4) and seed with 400', async () => {
    const { key } = await signUpWithKey(server.api);
    for (const fields of [{ variations: 0 }, { variations: 5 }, { seed: -1 }, { seed: 1.5 }, { label: 'big' }]) {
      const response = await stage(key, fields);
      expect(response.status, JSON.stringify(fields)).toBe(400);
    }
    expect(await creditsOf(server.api, key)).toBe(10);
  });

  it('draws the "Virtually staged" mark in the bottom-right corner only when asked', async () => {
    const { key } = await signUpWithKey(server.api);
    const plain = await stage(key, { seed: 5, label: 'none' });
    const labelled = await stage(key, { seed: 5, label: 'virtually_staged' });
    expect(labelled.status, labelled.text).toBe(200);
    const box = markBox(640, 400);
    expect(box.width * box.height).toBeLessThan(0.06 * 640 * 400);
    expect(box.left + box.width).toBeGreaterThan(600);
    expect(box.top + box.height).toBeGreaterThan(380);
    expect(await differenceIn(plain.body.image_url, labelled.body.image_url, box)).toBeGreaterThan(30);
    // Away from the corner the two pictures are the same.
    const elsewhere = { left: 0, top: 0, width: 640, height: 300 };
    expect(await differenceIn(plain.body.image_url, labelled.body.image_url, elsewhere)).toBeLessThan(0.5);
    // The mark is white text on a dark backing.
    const { data, info } = await pixels(labelled.body.image_url);
    let light = 0;
    let dark = 0;
    for (let y = box.top; y < box.top + box.height; y++) {
      for (let x = box.left; x < box.left + box.width; x++) {
        const at = (y * info.width + x) * 3;
        const values = [data[at]!, data[at + 1]!, data[at + 2]!];
        if (values.every((v) => v > 200)) light += 1;
        if (values.every((v) => v < 80)) dark += 1;
      }
    }
    expect(light).toBeGreaterThan(50);
    expect(dark).toBeGreaterThan(200);
  });

  it('keeps the default label in settings/staging and applies it when a request names none', async () => {
    const account = await signUpWithKey(server.api);
    const initial = await server.api.get('/api/v1/settings/staging', { token: account.token });
    expect(initial.status, initial.text).toBe(200);
    expect(initial.body).toEqual({ disclosure: 'caption', label: 'none' });
    expect((await server.api.get('/api/v1/settings/staging', { token: account.key })).status).toBe(401);
    const bad = await server.api.put('/api/v1/settings/staging', { token: account.token, json: { label: 'loud' } });
    expect(bad.status).toBe(400);

    const before = await stage(account.key, { seed: 9 });
    const put = await server.api.put('/api/v1/settings/staging', {
      token: account.token,
      json: { label: 'virtually_staged' },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ disclosure: 'label', label: 'virtually_staged' });
    expect((await server.api.get('/api/v1/settings/staging', { token: account.token })).body).toEqual({
      disclosure: 'label',
      label: 'virtually_staged',
    });
    const after = await stage(account.key, { seed: 9 });
    const overridden = await stage(account.key, { seed: 9, label: 'none' });
    const box = markBox(640, 400);
    expect(await differenceIn(before.body.image_url, after.body.image_url, box)).toBeGreaterThan(30);
    expect(await differenceIn(before.body.image_url, overridden.body.image_url, box)).toBeLessThan(0.5);
  });

  it('stages variations asynchronously and replays them under the same Idempotency-Key', async () => {
    const { key } = await signUpWithKey(server.api);
    const headers = { Prefer: 'respond-async', 'Idempotency-Key': `variations-${Date.now()}` };
    const accepted = await stage(key, { variations: 2, seed: 40 }, headers);
    expect(accepted.status, accepted.text).toBe(202);
    let job: Record<string, any> = {};
    await expect
      .poll(
        async () => {
          job = (await server.api.get(`/api/v1/jobs/${accepted.body.job_id}`, { token: key })).body;
          return job.status;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe('succeeded');
    expect(job.result).toMatchObject({ credits_used: 2, credits_remaining: 8 });
    expect(job.result.images.map((image: { seed: number }) => image.seed)).toEqual([40, 41]);
    const replay = await stage(key, { variations: 2, seed: 40 }, headers);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.job_id).toBe(accepted.body.job_id);
    expect(await creditsOf(server.api, key)).toBe(8);
  });
});

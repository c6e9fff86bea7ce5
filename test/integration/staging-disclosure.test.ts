import { createHash } from 'node:crypto';
import jsQRModule from 'jsqr';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { markBox } from '../../server/imaging/disclosure-mark.js';
import { signUp } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { fetchImage, onServer, roomJpeg } from '../fixtures/images.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';

// jsqr is CommonJS typed with an ES default: depending on the loader the default import is the function or its module.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as typeof jsQRModule.default;

const CAPTION_START = 'Virtually staged: furniture and decor were added digitally. Original photo: ';
const WIDTH = 640;
const HEIGHT = 400;

/** Disclosure profiles, originals' pages, consistent listings and re-renders, on the built-in engine. */
describeEachDatabase('Disclosure, originals and re-renders', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(WIDTH, HEIGHT);
  });

  const stage = (key: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    server.api.post('/api/v1/stage', { token: key, json: { image: photo.toString('base64'), ...fields }, headers });
  const rerender = (key: string, imageId: string, fields: Record<string, unknown> = {}, headers = {}) =>
    server.api.post(`/api/v1/images/${imageId}/rerender`, { token: key, json: fields, headers });

  async function rgb(imageUrl: string) {
    const { bytes } = await fetchImage(server, imageUrl);
    return sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  }

  /** Mean absolute difference of two same-sized outputs inside a box. */
  async function differenceIn(a: string, b: string, box: { left: number; top: number; width: number; height: number }) {
    const [first, second] = await Promise.all([rgb(a), rgb(b)]);
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

  /** The text of the QR code in the picture, or null when none is found. */
  async function qrText(imageUrl: string): Promise<string | null> {
    const { bytes } = await fetchImage(server, imageUrl);
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data ?? null;
  }

  const markCorner = markBox(WIDTH, HEIGHT);
  /** Where the QR code goes: the bottom-left quarter. */
  const qrCorner = { left: 0, top: HEIGHT / 2, width: WIDTH / 2, height: HEIGHT / 2 };

  it('draws what each disclosure profile asks for and captions every profile but none', async () => {
    const { key } = await signUpWithKey(server.api);
    const staged: Record<string, any> = {};
    for (const disclosure of ['none', 'label', 'caption', 'ca_ab723']) {
      const response = await stage(key, { seed: 77, disclosure });
      expect(response.status, response.text).toBe(200);
      staged[disclosure] = response.body;
      const [image] = response.body.images;
      expect(response.body.disclosure).toBe(disclosure);
      expect(image.original_url).toMatch(/^http:\/\/127\.0\.0\.1:1\/o\/[0-9A-Za-z]{26}$/);
      expect(response.body.original_url).toBe(image.original_url);
      const caption = disclosure === 'none' ? null : `${CAPTION_START}${image.original_url}`;
      expect(image.disclosure_caption).toBe(caption);
      expect(response.body.disclosure_caption).toBe(caption);
    }
    const none = staged.none.image_url;
    // label: the mark only.
    expect(await differenceIn(none, staged.label.image_url, markCorner)).toBeGreaterThan(30);
    expect(await differenceIn(none, staged.label.image_url, qrCorner)).toBeLessThan(0.5);
    // caption: nothing drawn.
    expect(await differenceIn(none, staged.caption.image_url, markCorner)).toBeLessThan(0.5);
    expect(await differenceIn(none, staged.caption.image_url, qrCorner)).toBeLessThan(0.5);
    expect(await qrText(staged.caption.image_url)).toBeNull();
    // ca_ab723: the mark and a QR code leading to the image's own original page, clear of the mark.
    const strict = staged.ca_ab723;
    expect(await differenceIn(none, strict.image_url, markCorner)).toBeGreaterThan(30);
    expect(await differenceIn(none, strict.image_url, qrCorner)).toBeGreaterThan(3);
    expect(await qrText(strict.image_url)).toBe(strict.images[0].original_url);
    // Away from the corners every profile leaves the picture alone.
    const middle = { left: 0, top: 0, width: WIDTH, height: 150 };
    expect(await differenceIn(none, strict.image_url, middle)).toBeLessThan(0.5);

    // The webhook event carries the same page and caption.
    const event = await server.services.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('event', '=', 'staging.complete')
      .where('payload', 'like', `%${strict.images[0].id}%`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.payload).data).toMatchObject({
      image_id: strict.images[0].id,
      original_url: strict.images[0].original_url,
      disclosure_caption: `${CAPTION_START}${strict.images[0].original_url}`,
    });
  });

  it('accepts the older label as an alias of the profiles', async () => {
    const { key } = await signUpWithKey(server.api);
    const marked = await stage(key, { seed: 3, label: 'virtually_staged' });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.disclosure).toBe('label');
    const plain = await stage(key, { seed: 3, label: 'none' });
    expect(plain.body).toMatchObject({ disclosure: 'none', disclosure_caption: null });
    expect((await stage(key, { disclosure: 'loud' })).status).toBe(400);
  });

  it("serves each original's page with both pictures and the caption; the original's bytes only under its token", async () => {
    const { key } = await signUpWithKey(server.api);
    const staged = await stage(key, { disclosure: 'caption' });
    expect(staged.status, staged.text).toBe(200);
    const [image] = staged.body.images;
    const pagePath = onServer(image.original_url);
    const page = await fetch(new URL(pagePath, server.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<meta name="description"');
    expect(html).toContain(onServer(image.image_url));
    expect(html).toContain(`${pagePath}/original`);
    expect(html).toContain(image.disclosure_caption);
    expect(html).not.toContain('<script');

    const original = await fetch(new URL(`${pagePath}/original`, server.url));
    expect(original.status).toBe(200);
    const bytes = Buffer.from(await original.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(photo).digest('hex'));

    // The kept original is never served by /images, under its storage name or any other.
    const row = await server.services.db
      .selectFrom('images')
      .select('original_storage_name')
      .where('id', '=', image.id)
      .executeTakeFirstOrThrow();
    expect(row.original_storage_name).toBeTruthy();
    expect((await fetch(new URL(`/images/${row.original_storage_name}`, server.url))).status).toBe(404);

    for (const unknown of ['/o/AAAAAAAAAAAAAAAAAAAAAAAAAA', '/o/nope', '/o/AAAAAAAAAAAAAAAAAAAAAAAAAA/original']) {
      const missing = await fetch(new URL(unknown, server.url));
      expect(missing.status, unknown).toBe(404);
      expect(await missing.text()).toContain('Page not found');
    }
  });

  it("shows original_url and the caption in the agent's claim and gallery", async () => {
    const issuer = await signUpWithKey(server.api);
    const staged = await stage(issuer.key, { disclosure: 'label' });
    const agent = await signUp(server.api);
    const redeemed = await server.api.post('/api/v1/claim', {
      token: agent.token,
      json: { code: staged.body.claim_code },
    });
    expect(redeemed.status, redeemed.text).toBe(200);
    expect(redeemed.body.images[0]).toMatchObject({
      original_url: staged.body.original_url,
      disclosure_caption: staged.body.disclosure_caption,
    });
    const gallery = await server.api.get('/api/v1/images', { token: agent.token });
    expect(gallery.body.images[0]).toMatchObject({ original_url: staged.body.original_url });
  });

  it('keeps the account default in settings/staging (caption until chosen) and applies it', async () => {
    const account = await signUpWithKey(server.api);
    const initial = await server.api.get('/api/v1/settings/staging', { token: account.token });
    expect(initial.body).toEqual({ disclosure: 'caption', label: 'none' });
    const byDefault = await stage(account.key, { seed: 11 });
    expect(byDefault.body).toMatchObject({ disclosure: 'caption' });
    expect(byDefault.body.disclosure_caption).toBe(`${CAPTION_START}${byDefault.body.original_url}`);

    const put = await server.api.put('/api/v1/settings/staging', {
      token: account.token,
      json: { disclosure: 'ca_ab723' },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ disclosure: 'ca_ab723', label: 'virtually_staged' });
    const strict = await stage(account.key, { seed: 11 });
    expect(strict.body.disclosure).toBe('ca_ab723');
    expect(await qrText(strict.body.image_url)).toBe(strict.body.original_url);

    const alias = await server.api.put('/api/v1/settings/staging', { token: account.token, json: { label: 'none' } });
    expect(alias.body).toEqual({ disclosure: 'none', label: 'none' });
    expect((await stage(account.key)).body).toMatchObject({ disclosure: 'none', disclosure_caption: null });
    const empty = await server.api.put('/api/v1/settings/staging', { token: account.token, json: {} });
    expect(empty.status).toBe(400);
  });

  it("stages later photos of a claim with the claim's style and seed unless the request sets them", async () => {
    const { key } = await signUpWithKey(server.api);
    const first = await stage(key, { style: 'industrial', room_type: 'bedroom' });
    expect(first.status, first.text).toBe(200);
    const claim = first.body.claim_code;
    const second = await stage(key, { claim_code: claim, room_type: 'bedroom' });
    expect(second.status, second.text).toBe(200);
    expect(second.body.style).toBe('industrial');
    expect(second.body.images[0].seed).toBe(first.body.images[0].seed);
    // The same photo, style and seed: the same picture.
    expect(
      await differenceIn(first.body.image_url, second.body.image_url, {
        left: 0,
        top: 0,
        width: WIDTH,
        height: HEIGHT,
      }),
    ).toBeLessThan(0.5);
    const own = await stage(key, { claim_code: claim, style: 'coastal', seed: 5 });
    expect(own.body).toMatchObject({ style: 'coastal' });
    expect(own.body.images[0].seed).toBe(5);

    // Without any style, both stages of a claim share the default style and the first one's seed.
    const plain = await stage(key, {});
    const plainNext = await stage(key, { claim_code: plain.body.claim_code });
    expect(plainNext.body.style).toBe(plain.body.style);
    expect(plainNext.body.images[0].seed).toBe(plain.body.images[0].seed);
  });

  it('re-renders three times free, then for 1 credit, each replacing the last in its claim', async () => {
    const account = await signUpWithKey(server.api);
    const staged = await stage(account.key, { disclosure: 'label' });
    expect(staged.status, staged.text).toBe(200);
    const claim = staged.body.claim_code;
    let current = staged.body.images[0];
    const served: string[] = [current.image_url];
    for (const expected of [0, 0, 0, 1]) {
      const response = await rerender(account.key, current.id);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        success: true,
        claim_code: claim,
        credits_used: expected,
        rerender_of: current.id,
        disclosure: 'label',
        style: staged.body.style,
      });
      const [image] = response.body.images;
      expect(image.seed).not.toBe(current.seed);
      expect(image.original_url).not.toBe(current.original_url);
      expect(image.disclosure_caption).toBe(`${CAPTION_START}${image.original_url}`);
      current = image;
      served.push(image.image_url);
    }
    expect(await creditsOf(server.api, account.key)).toBe(10 - 1 - 1);
    // Every old URL keeps serving; the claim holds only the newest.
    for (const url of served) expect((await fetchImage(server, url)).response.status).toBe(200);
    const inClaim = await server.services.db
      .selectFrom('images')
      .select('id')
      .where('claim_code', '=', claim)
      .execute();
    expect(inClaim.map((row) => row.id)).toEqual([current.id]);
    expectBooksAgree(await readBooks(server.services.db, account.userId));
  });

  it('re-renders with another profile when asked, and gives placed images an original page too', async () => {
    const { key } = await signUpWithKey(server.api);
    const staged = await stage(key, { disclosure: 'none' });
    const strict = await rerender(key, staged.body.images[0].id, { disclosure: 'ca_ab723' });
    expect(strict.status, strict.text).toBe(200);
    expect(strict.body).toMatchObject({ disclosure: 'ca_ab723', credits_used: 0 });
    expect(await qrText(strict.body.image_url)).toBe(strict.body.original_url);
    // Unless a request names one, a re-render keeps its image's profile.
    const kept = await rerender(key, strict.body.images[0].id);
    expect(kept.body.disclosure).toBe('ca_ab723');

    const placed = await server.api.post('/api/v1/place-products', {
      token: key,
      json: { image_id: kept.body.images[0].id },
    });
    expect(placed.status, placed.text).toBe(200);
    expect(placed.body.original_url).toMatch(/\/o\/[0-9A-Za-z]{26}$/);
    expect(placed.body.disclosure_caption).toBe(`${CAPTION_START}${placed.body.original_url}`);
    const original = await fetch(new URL(`${onServer(placed.body.original_url)}/original`, server.url));
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(photo)).toBe(true);
  });

  it('refuses a paid re-render with 402 when the credits cannot pay for it, changing nothing', async () => {
    const account = await signUpWithKey(server.api);
    const image = photo.toString('base64');
    // 8 + 2 credits: the balance is 0 afterwards.
    const spent = await server.api.post('/api/v1/stage', {
      token: account.key,
      json: { images: [image, image], variations: 4 },
    });
    expect(spent.status, spent.text).toBe(200);
    const last = await stage(account.key, { variations: 2 });
    expect(last.status, last.text).toBe(200);
    expect(await creditsOf(server.api, account.key)).toBe(0);
    const target = last.body.images[0];
    for (let free = 0; free < 3; free++) expect((await rerender(account.key, target.id)).body.credits_used).toBe(0);
    const countBefore = await server.services.db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', account.userId)
      .executeTakeFirstOrThrow();
    const refused = await rerender(account.key, target.id);
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body).toMatchObject({ code: 'insufficient_credits', credits_required: 1, credits_available: 0 });
    const countAfter = await server.services.db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', account.userId)
      .executeTakeFirstOrThrow();
    expect(Number(countAfter.count)).toBe(Number(countBefore.count));
    expect(await creditsOf(server.api, account.key)).toBe(0);
    expectBooksAgree(await readBooks(server.services.db, account.userId));
  });

  it("answers 404 for another account's image and 409 for an enhanced one", async () => {
    const owner = await signUpWithKey(server.api);
    const other = await signUpWithKey(server.api);
    const staged = await stage(owner.key);
    const stranger = await rerender(other.key, staged.body.images[0].id);
    expect(stranger.status, stranger.text).toBe(404);
    expect(stranger.body.code).toBe('not_found');
    expect((await rerender(owner.key, 'img_doesnotexist')).status).toBe(404);
    const enhanced = await server.api.post('/api/v1/enhance', {
      token: owner.key,
      json: { image: photo.toString('base64') },
    });
    const enhancedId = (
      await server.services.db
        .selectFrom('images')
        .select('id')
        .where('account_id', '=', owner.userId)
        .where('kind', '=', 'enhanced')
        .executeTakeFirstOrThrow()
    ).id;
    expect(enhanced.status).toBe(200);
    expect((await rerender(owner.key, enhancedId)).status).toBe(409);
    expect(await creditsOf(server.api, other.key)).toBe(10);
  });

  it('never gives more than three free re-renders to requests sent at once', async () => {
    const account = await signUpWithKey(server.api);
    const staged = await stage(account.key);
    const id = staged.body.images[0].id;
    const responses = await Promise.all(Array.from({ length: 6 }, () => rerender(account.key, id)));
    for (const response of responses) expect(response.status, response.text).toBe(200);
    const used = responses.map((response) => response.body.credits_used as number).sort();
    expect(used).toEqual([0, 0, 0, 1, 1, 1]);
    expect(await creditsOf(server.api, account.key)).toBe(10 - 1 - 3);
    const row = await server.services.db
      .selectFrom('images')
      .select('free_rerenders_used')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.free_rerenders_used).toBe(3);
    expectBooksAgree(await readBooks(server.services.db, account.userId));
  });

  it('re-renders asynchronously and replays under the same Idempotency-Key', async () => {
    const { key } = await signUpWithKey(server.api);
    const staged = await stage(key);
    const id = staged.body.images[0].id;
    const headers = { Prefer: 'respond-async', 'Idempotency-Key': `rerender-${Date.now()}` };
    const accepted = await rerender(key, id, {}, headers);
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
    expect(job.operation).toBe('rerender');
    expect(job.result).toMatchObject({ credits_used: 0, rerender_of: id, claim_code: staged.body.claim_code });
    const replay = await rerender(key, id, {}, headers);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.job_id).toBe(accepted.body.job_id);

    const sync = { 'Idempotency-Key': `rerender-sync-${Date.now()}` };
    const first = await rerender(key, id, {}, sync);
    const again = await rerender(key, id, {}, sync);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.images[0].id).toBe(first.body.images[0].id);
    const row = await server.services.db
      .selectFrom('images')
      .select('free_rerenders_used')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.free_rerenders_used).toBe(2);
  });

  // Moves the server's clock a day on: keep it last.
  it('charges every re-render once the image is more than 24 h old', async () => {
    const { key } = await signUpWithKey(server.api);
    const staged = await stage(key);
    server.clock.advance(24 * 3_600_000 + 60_000);
    const late = await rerender(key, staged.body.images[0].id);
    expect(late.status, late.text).toBe(200);
    expect(late.body.credits_used).toBe(1);
    expect(await creditsOf(server.api, key)).toBe(8);
  });
});

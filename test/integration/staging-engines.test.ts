import { emptyRoomImage } from '../../server/imaging/synthetic-room.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { describeOnSqlite } from '../helpers/each-database.js';
import { FakeComfyUI } from '../helpers/fake-comfyui.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import {
  asksToDeclutter,
  EMPTY_ROOM_COLOUR,
  FAKE_COLOUR,
  type FakeProvider,
  patchColour,
} from '../fixtures/fake-provider.js';
import { FakeReplicate } from '../fixtures/fake-replicate.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { fetchImage, imageForm, roomJpeg, storedFiles } from '../fixtures/images.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';
import { signUp } from '../fixtures/api-client.js';
import { markBox } from '../../server/imaging/disclosure-mark.js';

const closeTo = (colour: { r: number; g: number; b: number }) => [
  expect.closeTo(colour.r, -1.5),
  expect.closeTo(colour.g, -1.5),
  expect.closeTo(colour.b, -1.5),
];

/** Pixels inside the mark's corner box that are near white: the mark's text on a picture that has none. */
async function lightPixelsInCorner(bytes: Buffer): Promise<number> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const box = markBox(info.width, info.height);
  let light = 0;
  for (let y = box.top; y < box.top + box.height; y++) {
    for (let x = box.left; x < box.left + box.width; x++) {
      const at = (y * info.width + x) * 3;
      if (data[at]! > 200 && data[at + 1]! > 200 && data[at + 2]! > 200) light += 1;
    }
  }
  return light;
}

/** Each remote engine, driven through its real client against a local server speaking its protocol. */
const ENGINES: Array<{ name: string; fake: () => FakeProvider; refuses: boolean }> = [
  { name: 'replicate', fake: () => new FakeReplicate(), refuses: true },
  { name: 'openai', fake: () => new FakeOpenAI(), refuses: true },
  // A self-hosted ComfyUI has no content policy; a prompt that ends in an execution error is the provider failing.
  { name: 'comfyui', fake: () => new FakeComfyUI(), refuses: false },
];

// Generous: the fakes decode and redraw a real photo, which takes a while on a busy CI machine.
const ENGINE_TIMEOUT_MS = 6_000;
const ASYNC = { Prefer: 'respond-async' };

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'the providers; holds, jobs and webhooks run on both in their own files';

describeOnSqlite('Staging engines', SQLITE_ONLY, (dialect) => {
  for (const engine of ENGINES) {
    describe(`ENGINE=${engine.name}`, () => {
      let fake: FakeProvider;
      let receiver: WebhookReceiver;
      let photo: Buffer;
      beforeAll(async () => {
        fake = await engine.fake().start();
        receiver = await WebhookReceiver.start();
        // Landscape and not the provider's shape: the output must be resized and cropped back to it. A drawn room, the
        // same every run: a random-noise photo fails the fidelity check now and then, and with it the whole block.
        photo = await emptyRoomImage(640, 400);
      });
      const server = useImagingServer(dialect, () => ({
        env: { ...fake.env(), ENGINE_TIMEOUT: `${ENGINE_TIMEOUT_MS}ms` },
      }));
      afterEach(() => fake.reset());
      afterAll(async () => {
        await fake?.stop();
        await receiver?.close();
      });

      const stage = (key: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
        server.api.post('/api/v1/stage', { token: key, json: { image: photo.toString('base64'), ...fields }, headers });

      async function finishedJob(key: string, jobId: string) {
        let job: Record<string, any> = {};
        await expect
          .poll(
            async () => {
              job = (await server.api.get(`/api/v1/jobs/${jobId}`, { token: key })).body;
              return job.status;
            },
            { timeout: 15_000, interval: 100 },
          )
          .toMatch(/^(succeeded|failed)$/);
        return job;
      }

      /** Nothing charged, nothing stored, the books agree. */
      async function expectUntouched(account: { key: string; userId: string }, filesBefore: string[]) {
        expect(await creditsOf(server.api, account.key)).toBe(10);
        // A finished job's inputs are deleted just after its status is written, so they may outlive it briefly.
        await expect.poll(() => storedFiles(server), { timeout: 5_000 }).toEqual(filesBefore);
        const books = await readBooks(server.services.db, account.userId);
        expect(books.holds).toBe(0);
        expectBooksAgree(books);
      }

      it("stores the provider's picture at the input's size; the prompt carries style and room type", async () => {
        const { key } = await signUpWithKey(server.api);
        const response = await stage(key, { style: 'coastal', room_type: 'bedroom' });
        expect(response.status, response.text).toBe(200);
        expect(response.body).toMatchObject({
          success: true,
          style: 'coastal',
          room_type: 'bedroom',
          credits_used: 1,
          credits_remaining: 9,
        });
        expect(response.body.images[0]).toMatchObject({ width: 640, height: 400 });

        const { bytes, metadata } = await fetchImage(server, response.body.image_url);
        expect(metadata).toMatchObject({ format: 'jpeg', width: 640, height: 400, space: 'srgb' });
        // The fake keeps the room and draws a sofa of its colour on the floor: that patch reached the stored image.
        expect(await patchColour(bytes)).toEqual(closeTo(FAKE_COLOUR));
        expect(response.body.images[0].fidelity).toBeGreaterThanOrEqual(0.9);

        const [commission] = fake.commissions.slice(-1);
        expect(commission!.prompt).toMatch(/coastal/i);
        expect(commission!.prompt).toMatch(/bedroom/);
        expect(`${commission!.prompt} ${commission!.negativePrompt ?? ''}`).toMatch(/walls, windows, doors, floors/);
      });

      it('runs the typical flow: async stage, webhook, enhance, place, and the agent redeems the claim', async () => {
        const api = await signUpWithKey(server.api);
        const put = await server.api.put(`/api/v1/keys/${api.keyId}/webhook`, {
          token: api.token,
          json: { url: receiver.url, enabled: true },
        });
        expect(put.status).toBe(200);

        const accepted = await stage(api.key, { style: 'scandinavian' }, ASYNC);
        expect(accepted.status, accepted.text).toBe(202);
        const job = await finishedJob(api.key, accepted.body.job_id);
        expect(job).toMatchObject({
          status: 'succeeded',
          result: { success: true, style: 'scandinavian', credits_used: 1, credits_remaining: 9 },
        });
        const claimCode = job.result.claim_code as string;
        const imageId = job.result.images[0].id as string;
        await receiver.waitFor((requests) =>
          requests.some((request) => request.rawBody.toString('utf8').includes(imageId)),
        );

        const enhanced = await server.api.post('/api/v1/enhance', {
          token: api.key,
          json: { image: photo.toString('base64'), claim_code: claimCode },
        });
        expect(enhanced.status, enhanced.text).toBe(200);
        expect(enhanced.body).toMatchObject({ width: 3840, height: 2400, credits_used: 1, credits_remaining: 8 });

        const placed = await server.api.post('/api/v1/place-products', {
          token: api.key,
          json: { image_id: imageId, claim_code: claimCode },
        });
        expect(placed.status, placed.text).toBe(200);
        expect(placed.body.placements.length).toBeGreaterThan(0);
        expect((await fetchImage(server, placed.body.image_url)).metadata).toMatchObject({ width: 640, height: 400 });

        const agent = await signUp(server.api);
        const redeemed = await server.api.post('/api/v1/claim', { token: agent.token, json: { code: claimCode } });
        expect(redeemed.status, redeemed.text).toBe(200);
        expect(redeemed.body).toMatchObject({ status: 'redeemed', image_count: 3 });
        expectBooksAgree(await readBooks(server.services.db, api.userId));
      });

      it('answers 503 engine_unavailable with Retry-After when the provider is down; nothing kept', async () => {
        const account = await signUpWithKey(server.api);
        const before = storedFiles(server);
        fake.down = true;
        const response = await stage(account.key);
        expect(response.status, response.text).toBe(503);
        expect(response.body).toMatchObject({
          error: 'engine unavailable',
          code: 'engine_unavailable',
          message: expect.any(String),
        });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        await expectUntouched(account, before);
      });

      it('gives up at ENGINE_TIMEOUT when the provider is slower, refunding and storing nothing', async () => {
        const account = await signUpWithKey(server.api);
        const before = storedFiles(server);
        fake.delayMs = ENGINE_TIMEOUT_MS + 2_000;
        const started = Date.now();
        const response = await stage(account.key);
        expect(response.status, response.text).toBe(503);
        expect(response.body.code).toBe('engine_unavailable');
        expect(Date.now() - started).toBeLessThan(ENGINE_TIMEOUT_MS + 1_500);
        await expectUntouched(account, before);
      });

      it('retries a 429 after its Retry-After and succeeds within the timeout', async () => {
        const { key } = await signUpWithKey(server.api);
        fake.failNext.push({
          status: 429,
          headers: { 'retry-after': '1' },
          body: { detail: 'Request was throttled.' },
        });
        const started = Date.now();
        const response = await stage(key);
        expect(response.status, response.text).toBe(200);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
        expect(await creditsOf(server.api, key)).toBe(9);
      });

      it('fails an asynchronous job with engine_unavailable, refunds it and emits job.failed', async () => {
        const account = await signUpWithKey(server.api);
        const before = storedFiles(server);
        fake.down = true;
        const accepted = await stage(account.key, {}, ASYNC);
        expect(accepted.status).toBe(202);
        const job = await finishedJob(account.key, accepted.body.job_id);
        expect(job).toMatchObject({
          status: 'failed',
          error: { code: 'engine_unavailable', error: 'engine unavailable' },
        });
        await expectUntouched(account, before);
      });

      it('tells its capabilities: declutter and up to 4 variations', async () => {
        const response = await server.api.get('/api/v1/capabilities');
        expect(response.status, response.text).toBe(200);
        expect(response.body).toMatchObject({
          engine: engine.name,
          operations: ['stage', 'enhance', 'place_products', 'declutter'],
          max_variations: 4,
          declutter: true,
          label: true,
        });
      });

      it("declutters for 1 credit: the provider's empty room at the input's size, in the agent's gallery", async () => {
        const api = await signUpWithKey(server.api);
        const staged = await stage(api.key);
        const claimCode = staged.body.claim_code as string;
        const response = await server.api.post('/api/v1/declutter', {
          token: api.key,
          json: { image: photo.toString('base64'), claim_code: claimCode },
        });
        expect(response.status, response.text).toBe(200);
        expect(response.body).toEqual({
          success: true,
          image_url: expect.any(String),
          width: 640,
          height: 400,
          credits_used: 1,
          credits_remaining: 8,
          id: expect.stringMatching(/^img_/),
          disclosure: 'caption',
          original_url: expect.stringMatching(/\/o\/\w+$/),
          disclosure_caption: `Virtually staged: furniture and decor were added digitally. Original photo: ${response.body.original_url}`,
          fidelity: expect.any(Number),
          changes: expect.any(Array),
        });
        expect(response.body.fidelity).toBeGreaterThanOrEqual(0.9);
        const { bytes, metadata } = await fetchImage(server, response.body.image_url);
        expect(metadata).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
        expect(await patchColour(bytes)).toEqual(closeTo(EMPTY_ROOM_COLOUR));
        const [commission] = fake.commissions.slice(-1);
        expect(asksToDeclutter(commission!.prompt)).toBe(true);
        if (engine.name === 'replicate') expect(commission!.model).toBe('roomstage/declutterer');

        const agent = await signUp(server.api);
        expect((await server.api.post('/api/v1/claim', { token: agent.token, json: { code: claimCode } })).status).toBe(
          200,
        );
        const gallery = await server.api.get('/api/v1/images', { token: agent.token });
        expect(gallery.body.images.map((image: { kind: string }) => image.kind).sort()).toEqual([
          'decluttered',
          'staged',
        ]);

        // A re-render declutters the kept original again (free) and takes the old image's place in the claim.
        const again = await server.api.post(`/api/v1/images/${response.body.id}/rerender`, {
          token: api.key,
          json: {},
        });
        expect(again.status, again.text).toBe(200);
        expect(again.body).toMatchObject({ credits_used: 0, claim_code: claimCode, rerender_of: response.body.id });
        expect(asksToDeclutter(fake.commissions.slice(-1)[0]!.prompt)).toBe(true);
        const after = await server.api.get('/api/v1/images', { token: agent.token });
        expect(after.body.images.map((image: { id: string }) => image.id)).toContain(again.body.images[0].id);
        expect(after.body.images.map((image: { id: string }) => image.id)).not.toContain(response.body.id);
        expectBooksAgree(await readBooks(server.services.db, api.userId));
      });

      it('stages a decluttered photo for 2 credits an image: emptied once, then each variation staged', async () => {
        const { key } = await signUpWithKey(server.api);
        const asked = fake.commissions.length;
        const response = await stage(key, { declutter: true, variations: 2, seed: 500 });
        expect(response.status, response.text).toBe(200);
        expect(response.body).toMatchObject({ credits_used: 4, credits_remaining: 6 });
        expect(response.body.images.map((image: { seed: number }) => image.seed)).toEqual([500, 501]);
        const commissions = fake.commissions.slice(asked);
        expect(commissions.map((commission) => asksToDeclutter(commission.prompt))).toEqual([true, false, false]);
        if (engine.name !== 'openai') expect(commissions.slice(1).map((c) => c.seed)).toEqual([500, 501]);
        for (const image of response.body.images) {
          const { bytes } = await fetchImage(server, image.image_url);
          expect(await patchColour(bytes)).toEqual(closeTo(FAKE_COLOUR));
        }
      });

      it('declutters a multipart upload of a full-size photo', async () => {
        const { key } = await signUpWithKey(server.api);
        const large = await roomJpeg(2400, 1600);
        const response = await server.api.post('/api/v1/declutter', {
          token: key,
          body: imageForm([{ data: large }], { label: 'virtually_staged' }),
        });
        expect(response.status, response.text).toBe(200);
        expect(response.body).toMatchObject({ width: 2400, height: 1600, credits_used: 1 });
        expect(await lightPixelsInCorner((await fetchImage(server, response.body.image_url)).bytes)).toBeGreaterThan(
          500,
        );
      });

      it('declutters asynchronously: 202, then the job holds the declutter result', async () => {
        const { key } = await signUpWithKey(server.api);
        const accepted = await server.api.post('/api/v1/declutter', {
          token: key,
          json: { image: photo.toString('base64') },
          headers: ASYNC,
        });
        expect(accepted.status, accepted.text).toBe(202);
        const job = await finishedJob(key, accepted.body.job_id);
        expect(job).toMatchObject({
          operation: 'declutter',
          status: 'succeeded',
          result: { success: true, width: 640, height: 400, credits_used: 1, credits_remaining: 9 },
        });
        expect(await creditsOf(server.api, key)).toBe(9);
      });

      it('refunds a declutter the provider cannot do: 503, nothing kept', async () => {
        const account = await signUpWithKey(server.api);
        const before = storedFiles(server);
        fake.down = true;
        const response = await server.api.post('/api/v1/declutter', {
          token: account.key,
          json: { image: photo.toString('base64') },
        });
        expect(response.status, response.text).toBe(503);
        await expectUntouched(account, before);
      });

      it("marks the provider's picture when the label is asked, and only then", async () => {
        const { key } = await signUpWithKey(server.api);
        const labelled = await stage(key, { label: 'virtually_staged' });
        const plain = await stage(key, { label: 'none' });
        expect(labelled.status, labelled.text).toBe(200);
        expect(await lightPixelsInCorner((await fetchImage(server, labelled.body.image_url)).bytes)).toBeGreaterThan(
          50,
        );
        expect(await lightPixelsInCorner((await fetchImage(server, plain.body.image_url)).bytes)).toBe(0);
      });

      if (engine.refuses) {
        it('answers 422 engine_rejected when the provider refuses the content; nothing kept', async () => {
          const account = await signUpWithKey(server.api);
          const before = storedFiles(server);
          fake.refuse = true;
          const response = await stage(account.key);
          expect(response.status, response.text).toBe(422);
          expect(response.body).toMatchObject({ error: 'engine rejected', code: 'engine_rejected' });
          await expectUntouched(account, before);
        });
      }
    });
  }

  for (const engine of ENGINES.filter(({ name }) => name !== 'openai')) {
    describe(`ENGINE=${engine.name} without a declutter model or workflow`, () => {
      let fake: FakeProvider;
      beforeAll(async () => {
        fake = await engine.fake().start();
      });
      const server = useImagingServer(dialect, () => ({ env: fake.env({ declutter: false }) }));
      afterAll(async () => {
        await fake?.stop();
      });

      it('says it cannot declutter and refuses it with 422 unsupported_option, charging nothing', async () => {
        const capabilities = await server.api.get('/api/v1/capabilities');
        expect(capabilities.body).toMatchObject({ engine: engine.name, declutter: false });
        expect(capabilities.body.operations).not.toContain('declutter');
        const { key } = await signUpWithKey(server.api);
        const photo = (await roomJpeg(300, 300)).toString('base64');
        const response = await server.api.post('/api/v1/declutter', { token: key, json: { image: photo } });
        expect(response.status, response.text).toBe(422);
        expect(response.body).toMatchObject({ code: 'unsupported_option', option: 'declutter' });
        const staged = await server.api.post('/api/v1/stage', { token: key, json: { image: photo, declutter: true } });
        expect(staged.status).toBe(422);
        expect(await creditsOf(server.api, key)).toBe(10);
        expect(fake.commissions).toHaveLength(0);
      });
    });
  }
});

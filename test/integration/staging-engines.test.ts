import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { describeEachDatabase } from '../helpers/each-database.js';
import { FakeComfyUI } from '../helpers/fake-comfyui.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FAKE_COLOUR, type FakeProvider } from '../helpers/fake-provider.js';
import { FakeReplicate } from '../helpers/fake-replicate.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { fetchImage, roomJpeg, storedFiles } from '../helpers/images.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import type { TestServer } from '../helpers/server.js';
import { creditsOf, signUpWithKey, startImagingServer } from '../helpers/staging.js';
import { signUp } from '../helpers/api-client.js';

/** CONTRACT §11: each remote engine, driven through its real client against a local server speaking its protocol. */
const ENGINES: Array<{ name: string; fake: () => FakeProvider; refuses: boolean }> = [
  { name: 'replicate', fake: () => new FakeReplicate(), refuses: true },
  { name: 'openai', fake: () => new FakeOpenAI(), refuses: true },
  // A self-hosted ComfyUI has no content policy; a prompt that ends in an execution error is the provider failing.
  { name: 'comfyui', fake: () => new FakeComfyUI(), refuses: false },
];

const ENGINE_TIMEOUT_MS = 2_000;
const ASYNC = { Prefer: 'respond-async' };

describeEachDatabase('Staging engines', (dialect) => {
  for (const engine of ENGINES) {
    describe(`ENGINE=${engine.name}`, () => {
      let server: TestServer & { dropDatabase(): Promise<void> };
      let fake: FakeProvider;
      let receiver: WebhookReceiver;
      let photo: Buffer;
      beforeAll(async () => {
        fake = await engine.fake().start();
        receiver = await WebhookReceiver.start();
        server = await startImagingServer(dialect, {
          env: { ...fake.env(), ENGINE_TIMEOUT: `${ENGINE_TIMEOUT_MS}ms` },
        });
        // Landscape and not the provider's shape: the output must be resized and cropped back to it.
        photo = await roomJpeg(640, 400);
      });
      afterEach(() => fake.reset());
      afterAll(async () => {
        await server?.close();
        await server?.dropDatabase();
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
        const { channels } = await sharp(bytes).stats();
        expect(channels.slice(0, 3).map((channel) => Math.round(channel.mean))).toEqual([
          expect.closeTo(FAKE_COLOUR.r, -1.5),
          expect.closeTo(FAKE_COLOUR.g, -1.5),
          expect.closeTo(FAKE_COLOUR.b, -1.5),
        ]);

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
        fake.delayMs = ENGINE_TIMEOUT_MS + 3_000;
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
});

import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ImageEngine } from '../../server/imaging/engine.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { fetchImage, imageForm, roomJpeg, textFile } from '../fixtures/images.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { engineWith } from '../helpers/slow-engine.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';

/** Asynchronous requests: Prefer: respond-async, GET /api/v1/jobs/{id}, job.failed. */
describeEachDatabase('Asynchronous image requests', (dialect) => {
  // Two operations in flight per key, so the limit is reached with two queued jobs.
  const server = useImagingServer(dialect, { env: { RATE_LIMIT_CONCURRENT: '2' } });
  let receiver: WebhookReceiver;
  let photo: Buffer;
  let realEngine: ImageEngine;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    photo = await roomJpeg(400, 300);
    realEngine = server.services.engine;
  });
  afterEach(() => {
    server.services.engine = realEngine;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const ASYNC = { Prefer: 'respond-async' };
  const json = (image: Buffer) => ({ image: image.toString('base64') });

  async function customerWithWebhook() {
    const account = await signUpWithKey(server.api);
    const put = await server.api.put(`/api/v1/keys/${account.keyId}/webhook`, {
      token: account.token,
      json: { url: receiver.url, enabled: true },
    });
    expect(put.status).toBe(200);
    return account;
  }

  /** Polls the job until it has finished, and returns its last state. */
  async function finished(key: string, jobId: string) {
    let job: Record<string, any> = {};
    await expect
      .poll(
        async () => {
          const response = await server.api.get(`/api/v1/jobs/${jobId}`, { token: key });
          expect(response.status).toBe(200);
          job = response.body;
          return job.status;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toMatch(/^(succeeded|failed)$/);
    return job;
  }

  const eventsOf = (event: string, jobOrImage?: string) =>
    receiver.requests
      .map(
        (request) =>
          JSON.parse(request.rawBody.toString('utf8')) as { id: string; event: string; data: Record<string, any> },
      )
      .filter(
        (envelope) => envelope.event === event && (!jobOrImage || JSON.stringify(envelope.data).includes(jobOrImage)),
      );

  it('answers 202 with a job, charges at once, and the job succeeds with the same body as a synchronous stage', async () => {
    const { key, userId } = await customerWithWebhook();
    const accepted = await server.api.post('/api/v1/stage', {
      token: key,
      json: { ...json(photo), style: 'coastal' },
      headers: ASYNC,
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toEqual({
      job_id: expect.stringMatching(/^job_/),
      status: 'queued',
      status_url: `http://127.0.0.1:1/api/v1/jobs/${accepted.body.job_id}`,
    });
    // Charged when accepted (a hold), before any worker ran it.
    expect((await readBooks(server.services.db, userId)).credits).toBe(9);

    const job = await finished(key, accepted.body.job_id);
    const sync = await server.api.post('/api/v1/stage', { token: key, json: { ...json(photo), style: 'coastal' } });
    expect(sync.status).toBe(200);
    expect(job).toMatchObject({ id: accepted.body.job_id, operation: 'stage', status: 'succeeded', error: null });
    expect(Object.keys(job.result).sort()).toEqual(Object.keys(sync.body).sort());
    expect(job.result).toMatchObject({
      success: true,
      style: 'coastal',
      room_type: 'living_room',
      credits_used: 1,
      credits_remaining: 9,
    });
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
    const served = await fetchImage(server, job.result.image_url);
    expect(served.response.status).toBe(200);
    expect(served.metadata).toMatchObject({ width: 400, height: 300 });

    await receiver.waitFor(() => eventsOf('staging.complete', job.result.images[0].id).length === 1);
    expect(eventsOf('staging.complete', job.result.images[0].id)[0]!.data).toMatchObject({
      claim_code: job.result.claim_code,
      credits_remaining: 9,
    });
    const books = await readBooks(server.services.db, userId);
    expect(books).toMatchObject({ credits: 8, holds: 0, paidImages: 2 });
    expectBooksAgree(books);

    const metrics = await fetch(new URL('/metrics', server.url)).then((response) => response.text());
    expect(metrics).toMatch(/jobs_finished_total\{operation="stage",outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/jobs_active\{status="queued"\} \d+/);
    expect(metrics).toMatch(/jobs_active\{status="running"\} \d+/);
  });

  it('runs enhance and place-products (multipart too) as jobs with their synchronous bodies', async () => {
    const { key } = await signUpWithKey(server.api);
    const enhance = await server.api.post('/api/v1/enhance', {
      token: key,
      body: imageForm([{ data: photo }]),
      headers: ASYNC,
    });
    const place = await server.api.post('/api/v1/place-products', {
      token: key,
      json: { ...json(photo), max_products: 2 },
      headers: ASYNC,
    });
    expect([enhance.status, place.status]).toEqual([202, 202]);
    const enhanced = await finished(key, enhance.body.job_id);
    expect(enhanced).toMatchObject({
      operation: 'enhance',
      status: 'succeeded',
      result: { success: true, width: 3840, height: 2880, credits_used: 1, credits_remaining: 9 },
    });
    const placed = await finished(key, place.body.job_id);
    expect(placed).toMatchObject({
      operation: 'place_products',
      status: 'succeeded',
      result: { success: true, credits_used: 0, credits_remaining: 9 },
    });
    expect(placed.result.placements.length).toBeGreaterThan(0);
    expect(await creditsOf(server.api, key)).toBe(9);
  });

  it('refunds a failed job and sends job.failed with the error body', async () => {
    const { key, keyId, userId } = await customerWithWebhook();
    server.services.engine = engineWith(realEngine, {
      stage: async () => {
        throw new Error('GPU fell over');
      },
    });
    const accepted = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo.toString('base64'), photo.toString('base64')] },
      headers: ASYNC,
    });
    expect(accepted.status).toBe(202);
    const job = await finished(key, accepted.body.job_id);
    expect(job).toMatchObject({
      status: 'failed',
      result: null,
      error: { code: 'internal_error', error: 'internal error' },
    });
    expect(job.error.message).not.toMatch(/GPU/);

    const books = await readBooks(server.services.db, userId);
    expect(books).toMatchObject({ credits: 10, holds: 0, paidImages: 0 });
    expectBooksAgree(books);
    const ledger = await server.services.db
      .selectFrom('credit_ledger')
      .select(['reason', 'delta'])
      .where('account_id', '=', userId)
      .orderBy('id')
      .execute();
    expect(ledger.map((row) => `${row.reason} ${row.delta}`)).toEqual(['signup_bonus 10', 'stage -2', 'refund 2']);

    const [failed] = await receiver.waitFor(() => eventsOf('job.failed', accepted.body.job_id).length === 1);
    expect(failed).toBeDefined();
    const envelope = eventsOf('job.failed', accepted.body.job_id)[0]!;
    expect(envelope.data).toEqual({ job_id: accepted.body.job_id, operation: 'stage', error: job.error });
    const delivery = receiver.requests.find((request) => request.headers['x-webhook-id'] === envelope.id)!;
    expect(delivery.headers['x-webhook-event']).toBe('job.failed');
    expect(keyId).toBeGreaterThan(0);
  });

  it('gives up a job whose workers kept dying: refunded once, failed, and a late result from a lost lease stores nothing', async () => {
    const { key, keyId, userId } = await customerWithWebhook();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    let returned = 0;
    server.services.engine = engineWith(realEngine, {
      enhance: async (input) => {
        started++;
        await gate;
        const output = await realEngine.enhance(input);
        returned++;
        return output;
      },
    });
    const accepted = await server.api.post('/api/v1/enhance', { token: key, json: json(photo), headers: ASYNC });
    expect(accepted.status).toBe(202);
    const jobId = accepted.body.job_id as string;
    await expect.poll(() => started, { timeout: 30_000, interval: 50 }).toBe(1);

    // What three workers that died one after the other leave: the job running under a dead worker's expired lease.
    const { db } = server.services;
    await db
      .updateTable('jobs')
      .set({ attempts: 3, lease_owner: 'jwk_dead', lease_expires_at: server.clock.now() - 1 })
      .where('id', '=', jobId)
      .execute();
    const job = await finished(key, jobId);
    expect(job).toMatchObject({ status: 'failed', result: null, error: { code: 'internal_error' } });
    expect(job.error.message).toMatch(/interrupted 3 times/);

    // The first run, still alive, finishes its image late: its lease is gone, so nothing is stored or charged.
    release();
    await expect.poll(() => returned, { timeout: 60_000, interval: 50 }).toBe(1);
    // Storing the output and trying to make the charge final take a moment after the engine returns.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await receiver.waitFor(() => eventsOf('job.failed', jobId).length === 1);
    expect((await server.api.get(`/api/v1/jobs/${jobId}`, { token: key })).body).toEqual(job);
    const books = await readBooks(db, userId);
    expect(books).toMatchObject({ credits: 10, holds: 0, paidImages: 0 });
    expectBooksAgree(books);
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['reason', 'delta'])
      .where('account_id', '=', userId)
      .orderBy('id')
      .execute();
    expect(ledger.map((row) => `${row.reason} ${row.delta}`)).toEqual(['signup_bonus 10', 'enhance -1', 'refund 1']);
    expect(eventsOf('job.failed', jobId)).toHaveLength(1);
    expect(keyId).toBeGreaterThan(0);
  });

  it("answers 404 for another account's job and for an unknown one", async () => {
    const owner = await signUpWithKey(server.api);
    const stranger = await signUpWithKey(server.api);
    const accepted = await server.api.post('/api/v1/enhance', { token: owner.key, json: json(photo), headers: ASYNC });
    expect(accepted.status).toBe(202);
    const foreign = await server.api.get(`/api/v1/jobs/${accepted.body.job_id}`, { token: stranger.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'not_found', error: 'not found' });
    expect((await server.api.get('/api/v1/jobs/job_doesnotexist', { token: owner.key })).status).toBe(404);
    // An identity token is no credential here.
    expect((await server.api.get(`/api/v1/jobs/${accepted.body.job_id}`, { token: owner.token })).status).toBe(401);
    await finished(owner.key, accepted.body.job_id);
  });

  it('replays the 202 for a repeated Idempotency-Key and charges once', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const send = () =>
      server.api.post('/api/v1/enhance', {
        token: key,
        json: json(photo),
        headers: { ...ASYNC, 'Idempotency-Key': 'async-once' },
      });
    const first = await send();
    expect(first.status).toBe(202);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    await finished(key, first.body.job_id);
    const third = await send();
    expect(third.status).toBe(202);
    expect(third.body).toEqual(first.body);
    expect(
      await server.services.db.selectFrom('jobs').select('id').where('account_id', '=', userId).execute(),
    ).toHaveLength(1);
    expect(await creditsOf(server.api, key)).toBe(9);
    // The same key with another request is a conflict.
    const other = await server.api.post('/api/v1/stage', {
      token: key,
      json: json(photo),
      headers: { ...ASYNC, 'Idempotency-Key': 'async-once' },
    });
    expect(other.status).toBe(409);
  });

  it('counts queued and running jobs against the per-key limit of operations in flight', async () => {
    const { key } = await signUpWithKey(server.api);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server.services.engine = engineWith(realEngine, {
      enhance: async (input) => {
        await gate;
        return realEngine.enhance(input);
      },
    });
    const first = await server.api.post('/api/v1/enhance', { token: key, json: json(photo), headers: ASYNC });
    const second = await server.api.post('/api/v1/enhance', { token: key, json: json(photo), headers: ASYNC });
    expect([first.status, second.status]).toEqual([202, 202]);

    const refusedAsync = await server.api.post('/api/v1/enhance', { token: key, json: json(photo), headers: ASYNC });
    const refusedSync = await server.api.post('/api/v1/place-products', { token: key, json: json(photo) });
    for (const refused of [refusedAsync, refusedSync]) {
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toBeTruthy();
    }
    expect(await creditsOf(server.api, key)).toBe(8);

    release();
    expect((await finished(key, first.body.job_id)).status).toBe('succeeded');
    expect((await finished(key, second.body.job_id)).status).toBe('succeeded');
    expect((await server.api.post('/api/v1/place-products', { token: key, json: json(photo) })).status).toBe(200);
  });

  it('answers validation errors synchronously, charging nothing and queueing nothing', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const notAnImage = await server.api.post('/api/v1/stage', {
      token: key,
      json: { image: textFile().toString('base64') },
      headers: ASYNC,
    });
    expect(notAnImage.status).toBeGreaterThanOrEqual(400);
    expect(notAnImage.status).toBeLessThan(500);
    expect(notAnImage.body.code).toMatch(/^(unsupported_media_type|invalid_image)$/);
    const badStyle = await server.api.post('/api/v1/stage', {
      token: key,
      json: { ...json(photo), style: 'baroque' },
      headers: ASYNC,
    });
    expect(badStyle.status).toBe(400);
    expect(badStyle.body.code).toBe('invalid_request');
    const unknownClaim = await server.api.post('/api/v1/enhance', {
      token: key,
      json: { ...json(photo), claim_code: 'RS-ZZZZZZZZ' },
      headers: ASYNC,
    });
    expect(unknownClaim.status).toBe(404);
    const tooMany = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: Array.from({ length: 10 }, () => photo.toString('base64')) },
      headers: ASYNC,
    });
    const overBudget = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo.toString('base64')] },
      headers: ASYNC,
    });
    expect(tooMany.status).toBe(202);
    expect(overBudget.status).toBe(402);
    expect(overBudget.body.code).toBe('insufficient_credits');
    await finished(key, tooMany.body.job_id);

    const jobs = await server.services.db
      .selectFrom('jobs')
      .select('status')
      .where('account_id', '=', userId)
      .execute();
    expect(jobs.map((job) => job.status)).toEqual(['succeeded']);
    const books = await readBooks(server.services.db, userId);
    expect(books).toMatchObject({ credits: 0, holds: 0, paidImages: 10 });
    expectBooksAgree(books);
    // No input of a refused or finished job is left in storage. The runner discards a job's inputs just after it
    // records the job as finished, so the poll that saw it finish can be a moment ahead of the discard.
    await expect
      .poll(() => server.services.db.selectFrom('job_inputs').select('storage_name').execute(), {
        timeout: 5_000,
        interval: 50,
      })
      .toEqual([]);
  });
});

import { afterEach, beforeAll, expect, it } from 'vitest';
import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { AppError } from '../../server/errors.js';
import type { ImageEngine } from '../../server/imaging/engine.js';
import type { ImageStorage } from '../../server/storage/storage.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg, storedFiles } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';

describeEachDatabase('Credits for image operations: charged before processing, refunded on failure', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  let realEngine: ImageEngine;
  let realStorage: ImageStorage;
  beforeAll(async () => {
    photo = await roomJpeg(400, 300);
    realEngine = server.services.engine;
    realStorage = server.services.storage;
  });
  afterEach(() => {
    server.services.engine = realEngine;
    server.services.storage = realStorage;
  });

  const db = () => server.services.db;
  const ledgerOf = async (accountId: string) =>
    (
      await db()
        .selectFrom('credit_ledger')
        .select(['delta', 'reason', 'balance_after'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((r) => ({ ...r }));
  const imageRows = (accountId: string) =>
    db().selectFrom('images').selectAll().where('account_id', '=', accountId).execute();
  const stagingEvents = async (accountId: string) =>
    (
      await db()
        .selectFrom('webhook_events')
        .select(['event', 'payload', 'key_id'])
        .where('account_id', '=', accountId)
        .where('event', '=', 'staging.complete')
        .execute()
    ).map((row) => ({
      ...row,
      envelope: JSON.parse(row.payload),
    }));
  const stage = (key: string) => server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) });

  /** The real engine with one operation replaced. */
  function engineWith(overrides: Partial<ImageEngine>): ImageEngine {
    return {
      capabilities: realEngine.capabilities,
      inspect: (input) => realEngine.inspect(input),
      declutter: (input, options) => realEngine.declutter(input, options),
      stage: (input, options) => realEngine.stage(input, options),
      enhance: (input) => realEngine.enhance(input),
      preview: (input, maxEdge) => realEngine.preview(input, maxEdge),
      placeProducts: (input, options) => realEngine.placeProducts(input, options),
      ...overrides,
    };
  }

  it('lets exactly 10 of 25 simultaneous stages through on 10 credits; the rest get 402 insufficient_credits', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const responses = await Promise.all(Array.from({ length: 25 }, () => stage(key)));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 402);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(15);
    for (const response of refused) {
      expect(response.body).toEqual({
        error: 'insufficient credits',
        code: 'insufficient_credits',
        message: expect.stringMatching(/buy credits/i),
        credits_required: 1,
        credits_available: 0,
      });
    }
    expect(ok.map((r) => r.body.credits_remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await creditsOf(server.api, key)).toBe(0);
    expect(await ledgerSum(db(), userId)).toBe(0);
    expect((await ledgerOf(userId)).filter((e) => e.reason === 'stage')).toHaveLength(10);
    expect(await imageRows(userId)).toHaveLength(10);
    expect(await stagingEvents(userId)).toHaveLength(10);
    const balance = await server.api.get('/api/v1/credits', { token: key });
    expect(balance.body).toMatchObject({ credits: 0, total_used: 10 });
  });

  it('answers a zero balance without auto top-up with insufficient_credits, and charges a multi-image stage all or nothing', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const eight = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: Array.from({ length: 8 }, () => photo.toString('base64')) },
    });
    expect(eight.body).toMatchObject({ credits_used: 8, credits_remaining: 2 });
    const three = await server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: photo }, { data: photo }, { data: photo }]),
    });
    expect(three.status).toBe(402);
    expect(three.body).toMatchObject({ code: 'insufficient_credits', credits_required: 3, credits_available: 2 });
    expect(await creditsOf(server.api, key)).toBe(2);
    await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo.toString('base64'), photo.toString('base64')] },
    });
    const empty = await server.api.post('/api/v1/enhance', { token: key, body: imageForm([{ data: photo }]) });
    expect(empty.status).toBe(402);
    expect(empty.body).toEqual({
      error: 'insufficient credits',
      code: 'insufficient_credits',
      message: expect.any(String),
      credits_required: 1,
      credits_available: 0,
    });
    // Placing products stays free at a zero balance.
    const placed = await server.api.post('/api/v1/place-products', { token: key, body: imageForm([{ data: photo }]) });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({ credits_used: 0, credits_remaining: 0 });
    expect(await imageRows(userId)).toHaveLength(11);
  });

  it('answers no_credits only at a zero balance that an enabled auto top-up could not rescue', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    await db().updateTable('accounts').set({ auto_topup_enabled: 1 }).where('id', '=', userId).execute();
    await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: Array.from({ length: 9 }, () => photo.toString('base64')) },
    });
    const short = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo.toString('base64'), photo.toString('base64')] },
    });
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({ code: 'insufficient_credits', credits_required: 2, credits_available: 1 });
    await stage(key);
    const zero = await stage(key);
    expect(zero.status).toBe(402);
    expect(zero.body).toEqual({
      error: 'no credits remaining',
      code: 'no_credits',
      message: expect.stringMatching(/payment method/),
      credits_remaining: 0,
    });
  });

  it('refunds in the same request when the engine fails after the charge; the ledger shows both entries', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const filesBefore = storedFiles(server).length;
    server.services.engine = engineWith({ stage: async () => Promise.reject(new Error('GPU fell over')) });
    const response = await stage(key);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'internal error', code: 'internal_error', message: expect.any(String) });
    expect(response.text).not.toContain('GPU fell over');
    expect(await creditsOf(server.api, key)).toBe(10);
    expect(await ledgerOf(userId)).toEqual([
      { delta: 10, reason: 'signup_bonus', balance_after: 10 },
      { delta: -1, reason: 'stage', balance_after: 9 },
      { delta: 1, reason: 'refund', balance_after: 10 },
    ]);
    expect(await ledgerSum(db(), userId)).toBe(10);
    expect(await imageRows(userId)).toHaveLength(0);
    expect(await db().selectFrom('claims').select('code').where('account_id', '=', userId).execute()).toHaveLength(0);
    expect(await stagingEvents(userId)).toHaveLength(0);
    expect(storedFiles(server).length).toBe(filesBefore);
    const balance = await server.api.get('/api/v1/credits', { token: key });
    expect(balance.body.total_used).toBe(0);
  });

  it('refunds an image the engine finds undecodable only while processing, with 422', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    server.services.engine = engineWith({
      enhance: async () => Promise.reject(new AppError('invalid_image', 'The image data is damaged.')),
    });
    const response = await server.api.post('/api/v1/enhance', { token: key, body: imageForm([{ data: photo }]) });
    expect(response.status).toBe(422);
    expect(await creditsOf(server.api, key)).toBe(10);
    expect((await ledgerOf(userId)).map((e) => e.reason)).toEqual(['signup_bonus', 'enhance', 'refund']);
  });

  it('refunds every image of a multi-image stage and deletes the files already written when storing fails', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const filesBefore = storedFiles(server).length;
    let puts = 0;
    server.services.storage = {
      ...realStorage,
      put: async (name, data, type) => {
        if (++puts === 3) throw new Error('disk full');
        return realStorage.put(name, data, type);
      },
    };
    const response = await server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: photo }, { data: photo }, { data: photo }]),
    });
    expect(response.status).toBe(500);
    expect(puts).toBe(3);
    expect(await creditsOf(server.api, key)).toBe(10);
    expect(await ledgerOf(userId)).toEqual([
      { delta: 10, reason: 'signup_bonus', balance_after: 10 },
      { delta: -3, reason: 'stage', balance_after: 7 },
      { delta: 3, reason: 'refund', balance_after: 10 },
    ]);
    expect(storedFiles(server).length).toBe(filesBefore);
    expect(await imageRows(userId)).toHaveLength(0);
  });

  it('emits staging.complete per staged image with the balance as of that charge', async () => {
    const { key, keyId, userId } = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo.toString('base64'), photo.toString('base64')], style: 'coastal', room_type: 'office' },
    });
    expect(response.status).toBe(200);
    const events = await stagingEvents(userId);
    expect(events).toHaveLength(2);
    const byImage = new Map(events.map((e) => [e.envelope.data.image_id, e]));
    for (const image of response.body.images) {
      const event = byImage.get(image.id)!;
      expect(event.key_id).toBe(keyId);
      expect(event.envelope).toEqual({
        id: expect.stringMatching(/^evt_/),
        event: 'staging.complete',
        timestamp: expect.stringMatching(/Z$/),
        data: {
          image_url: image.image_url,
          claim_code: response.body.claim_code,
          style: 'coastal',
          room_type: 'office',
          credits_used: 1,
          credits_remaining: 8,
          image_id: image.id,
          variation: 0,
          seed: image.seed,
          original_url: image.original_url,
          disclosure_caption: image.disclosure_caption,
          fidelity: image.fidelity,
          changes: image.changes,
        },
      });
    }
  });
});

import * as usageRollupMigration from '../../db/migrations/2026_11_23_1020_create_usage_daily.js';
import { beforeAll, expect, it } from 'vitest';
import { DAY_MS } from '../../server/clock.js';
import { AppError } from '../../server/errors.js';
import { createKey, signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg, onServer } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';
import { confirmEmailOf } from '../fixtures/mail.js';
import { serveToViewers } from '../fixtures/ads.js';

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const NO_USAGE = { images_staged: 0, images_enhanced: 0, product_placements: 0, credits_used: 0 };

describeEachDatabase('Usage: what an account did, by day and by key', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(400, 300);
  });

  const usage = (token: string, query = '') => server.api.get(`/api/v1/usage${query}`, { token });
  const today = () => dateOf(server.clock.now());

  /**
   * An API user with two keys: key one stages two photos (one claim), places products in one of them into that
   * claim, and has a stage refunded by a failing engine; key two enhances one photo. An agent redeems the claim and
   * the placed image is viewed once.
   */
  async function busyAccount() {
    const user = await signUpWithKey(server.api);
    const second = await createKey(server.api, user.token, { name: 'Second' });
    const staged = await server.api.post('/api/v1/stage', {
      token: user.key,
      body: imageForm([{ data: photo }, { data: photo }]),
    });
    expect(staged.status).toBe(200);
    const placed = await server.api.post('/api/v1/place-products', {
      token: user.key,
      json: { image_id: staged.body.images[0].id, claim_code: staged.body.claim_code },
    });
    expect(placed.status).toBe(200);
    const enhanced = await server.api.post('/api/v1/enhance', {
      token: second.key,
      body: imageForm([{ data: photo }]),
    });
    expect(enhanced.status).toBe(200);

    const realEngine = server.services.engine;
    server.services.engine = {
      ...realEngine,
      inspect: (input) => realEngine.inspect(input),
      stage: () => Promise.reject(new AppError('invalid_image', 'The engine could not read it.')),
    };
    try {
      expect(
        (await server.api.post('/api/v1/stage', { token: user.key, body: imageForm([{ data: photo }]) })).status,
      ).toBe(422);
    } finally {
      server.services.engine = realEngine;
    }
    expect(await creditsOf(server.api, user.key)).toBe(7);

    const agent = await signUp(server.api);
    expect(
      (await server.api.post('/api/v1/claim', { token: agent.token, json: { code: staged.body.claim_code } })).status,
    ).toBe(200);
    // One person's browser views the listing: one impression of each placement.
    expect(await serveToViewers(server.url, onServer(placed.body.image_url), ['usage-viewer'])).toEqual([200]);
    return { user, second, agent, placements: placed.body.placements.length as number };
  }

  it('reports exactly what the account did today, with 30 days by default and zeros on the other days', async () => {
    const { user, second } = await busyAccount();
    const response = await usage(user.token);
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report.to).toBe(today());
    expect(report.from).toBe(dateOf(server.clock.now() - 29 * DAY_MS));
    expect(report.totals).toEqual({
      images_staged: 2,
      images_enhanced: 1,
      product_placements: 1,
      credits_used: 3,
      credits_purchased: 0,
      claims_issued: 1,
      claims_redeemed: 1,
    });
    expect(report.daily).toHaveLength(30);
    expect(report.daily.map((d: { date: string }) => d.date)).toEqual(
      Array.from({ length: 30 }, (_, i) => dateOf(server.clock.now() - (29 - i) * DAY_MS)),
    );
    expect(report.daily.at(-1)).toEqual({
      date: today(),
      images_staged: 2,
      images_enhanced: 1,
      product_placements: 1,
      credits_used: 3,
    });
    for (const day of report.daily.slice(0, -1)) expect(day).toEqual({ date: day.date, ...NO_USAGE });
    expect(report.keys).toEqual([
      {
        key_id: second.id,
        name: 'Second',
        prefix: expect.stringMatching(/^sk_(live|test)_/),
        credits_used: 1,
        last_used_at: expect.any(String),
      },
      {
        key_id: user.keyId,
        name: 'Default',
        prefix: expect.stringMatching(/^sk_(live|test)_/),
        credits_used: 2,
        last_used_at: expect.any(String),
      },
    ]);
    expect(report.ad_revenue).toEqual({ impressions: 0, gross_cents: 0, earned_cents: 0 });
  });

  it("shows the agent's ad revenue of the redeemed images and no API usage of its own", async () => {
    const { agent, placements } = await busyAccount();
    const report = (await usage(agent.token)).body;
    expect(report.totals).toEqual({
      images_staged: 0,
      images_enhanced: 0,
      product_placements: 0,
      credits_used: 0,
      credits_purchased: 0,
      claims_issued: 0,
      claims_redeemed: 0,
    });
    expect(report.keys).toEqual([]);
    expect(report.ad_revenue.impressions).toBe(placements);
  });

  it('narrows the report to one key of the account', async () => {
    const { user, second } = await busyAccount();
    const report = (await usage(user.token, `?key_id=${second.id}`)).body;
    expect(report.totals).toEqual({
      images_staged: 0,
      images_enhanced: 1,
      product_placements: 0,
      credits_used: 1,
      credits_purchased: 0,
      claims_issued: 0,
      claims_redeemed: 0,
    });
    expect(report.daily.at(-1)).toEqual({
      date: today(),
      images_staged: 0,
      images_enhanced: 1,
      product_placements: 0,
      credits_used: 1,
    });
    expect(report.keys).toEqual([
      {
        key_id: second.id,
        name: 'Second',
        prefix: expect.stringMatching(/^sk_(live|test)_/),
        credits_used: 1,
        last_used_at: expect.any(String),
      },
    ]);

    const first = (await usage(user.token, `?key_id=${user.keyId}`)).body;
    expect(first.totals).toMatchObject({
      images_staged: 2,
      product_placements: 1,
      credits_used: 2,
      claims_issued: 1,
      claims_redeemed: 1,
    });
  });

  it("answers 404 for a key of another account or no key at all, never revealing others' keys", async () => {
    const mine = await signUpWithKey(server.api);
    const theirs = await signUpWithKey(server.api);
    for (const keyId of [theirs.keyId, 987654321]) {
      const response = await usage(mine.token, `?key_id=${keyId}`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ error: 'not found', code: 'not_found' });
    }
  });

  it('covers exactly the days asked for, both ends included', async () => {
    const { user } = await busyAccount();
    const yesterday = dateOf(server.clock.now() - DAY_MS);
    const past = (await usage(user.token, `?from=${yesterday}&to=${yesterday}`)).body;
    expect(past).toMatchObject({ from: yesterday, to: yesterday, daily: [{ date: yesterday, ...NO_USAGE }] });
    expect(past.totals.credits_used).toBe(0);
    expect(past.keys.map((k: { credits_used: number }) => k.credits_used)).toEqual([0, 0]);

    const year = (await usage(user.token, `?from=${dateOf(server.clock.now() - 365 * DAY_MS)}&to=${today()}`)).body;
    expect(year.daily).toHaveLength(366);
    expect(year.totals.credits_used).toBe(3);
  });

  it('refuses malformed dates, reversed ranges, ranges over 366 days and bad key ids with invalid_request', async () => {
    const { token } = await signUp(server.api);
    for (const query of [
      '?from=2026-13-01',
      '?from=2026-02-30&to=2026-03-01',
      '?to=yesterday',
      '?from=2026-11-20T00:00:00Z',
      '?from=2026-11-10&to=2026-11-09',
      '?from=2025-01-01&to=2026-01-02',
      '?key_id=abc',
      '?key_id=0',
    ]) {
      const response = await usage(token, query);
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({
        error: 'invalid request',
        code: 'invalid_request',
        details: [expect.objectContaining({ path: expect.any(String) })],
      });
    }
  });

  it('asks for a sign-in: no token and an API key are both 401', async () => {
    const { key } = await signUpWithKey(server.api);
    for (const token of [undefined, key]) {
      const response = await server.api.get('/api/v1/usage', { token });
      expect(response.status).toBe(401);
    }
  });

  it('counts each of 12 simultaneous stages on 10 credits once, and none of the refused ones', async () => {
    const user = await signUpWithKey(server.api);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        server.api.post('/api/v1/stage', { token: user.key, body: imageForm([{ data: photo }]) }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    const report = (await usage(user.token)).body;
    expect(report.totals).toMatchObject({ images_staged: 10, credits_used: 10, claims_issued: 10 });
    expect(report.keys).toEqual([
      {
        key_id: user.keyId,
        name: 'Default',
        prefix: expect.stringMatching(/^sk_(live|test)_/),
        credits_used: 10,
        last_used_at: expect.any(String),
      },
    ]);
  });

  it('counts credits bought through checkout once as purchased, on no key, and never as used', async () => {
    const user = await signUpWithKey(server.api);
    await confirmEmailOf(server, user.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token: user.token, json: { credits: 25 } });
    expect(checkout.status).toBe(200);
    const { pathname, search } = new URL(checkout.body.checkout_url);
    for (let i = 0; i < 2; i++) await server.api.get(pathname + search);
    expect(await creditsOf(server.api, user.key)).toBe(35);
    const report = (await usage(user.token)).body;
    expect(report.totals).toMatchObject({ credits_purchased: 25, credits_used: 0 });
    expect(report.keys).toEqual([
      {
        key_id: user.keyId,
        name: 'Default',
        prefix: expect.stringMatching(/^sk_(live|test)_/),
        credits_used: 0,
        last_used_at: expect.any(String),
      },
    ]);
  });

  it('puts work done on a later day into that day', async () => {
    const user = await signUpWithKey(server.api);
    expect(
      (await server.api.post('/api/v1/stage', { token: user.key, body: imageForm([{ data: photo }]) })).status,
    ).toBe(200);
    const firstDay = today();
    server.clock.advance(DAY_MS);
    expect(
      (await server.api.post('/api/v1/stage', { token: user.key, body: imageForm([{ data: photo }, { data: photo }]) }))
        .status,
    ).toBe(200);
    const report = (await usage(user.token, `?from=${firstDay}`)).body;
    expect(report.daily).toEqual([
      { date: firstDay, images_staged: 1, images_enhanced: 0, product_placements: 0, credits_used: 1 },
      { date: today(), images_staged: 2, images_enhanced: 0, product_placements: 0, credits_used: 2 },
    ]);
    expect(report.totals).toMatchObject({ images_staged: 3, credits_used: 3, claims_issued: 2 });
  });

  it("rolls up existing rows in its migration exactly as the transactions kept them (run after every other test's work)", async () => {
    const db = server.services.db;
    const snapshot = async () =>
      (
        await db.selectFrom('usage_daily').selectAll().orderBy('account_id').orderBy('day').orderBy('key_id').execute()
      ).map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => [column, column === 'account_id' ? value : Number(value)]),
        ),
      );
    const kept = await snapshot();
    expect(kept.length).toBeGreaterThan(5);
    await usageRollupMigration.down(db);
    await usageRollupMigration.up(db);
    expect(await snapshot()).toEqual(kept);
  });
});

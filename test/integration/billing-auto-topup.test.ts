import { beforeAll, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';
import { confirmEmailOf, outboxFor } from '../fixtures/mail.js';

const HOUR = 3_600_000;

describeEachDatabase('Auto top-up (simulated gateway)', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(400, 300);
  });

  const db = () => server.services.db;
  const stage = (key: string, images = 1) =>
    server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm(Array.from({ length: images }, () => ({ data: photo }))),
    });
  const events = async (accountId: string, event: string) =>
    (
      await db()
        .selectFrom('webhook_events')
        .select('payload')
        .where('account_id', '=', accountId)
        .where('event', '=', event)
        .execute()
    ).map((row) => JSON.parse(row.payload).data);
  const attempts = (accountId: string) =>
    db().selectFrom('topup_attempts').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();

  /** An account with the bonus, `credits` bought with a simulated card and auto top-up saved as given. */
  async function account(credits: number, settings: Record<string, unknown>, card?: 'declines_off_session') {
    const user = await signUpWithKey(server.api);
    await confirmEmailOf(server, user.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token: user.token, json: { credits } });
    const url = new URL(checkout.body.checkout_url);
    await server.api.get(url.pathname + (card ? `?card=${card}` : ''));
    const saved = await server.api.put('/api/v1/settings/auto-topup', {
      token: user.token,
      json: { enabled: true, ...settings },
    });
    expect(saved.status).toBe(200);
    return user;
  }

  it('makes exactly one top-up when 20 concurrent charges cross the threshold', async () => {
    const user = await account(20, { amount: 50, threshold: 15 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => stage(user.key)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    await server.services.autoTopUp.drain();

    const made = await attempts(user.userId);
    expect(made.map((a) => a.status)).toEqual(['succeeded']);
    expect(await events(user.userId, 'auto_topup.success')).toEqual([
      { amount: 50, new_balance: expect.any(Number), payment_id: expect.stringMatching(/^pi_sim_/) },
    ]);
    expect(await creditsOf(server.api, user.key)).toBe(30 - 20 + 50);
    const billing = await server.api.get('/api/v1/billing', { token: user.token });
    expect(billing.body.total_purchased).toBe(70);
    expectBooksAgree(await readBooks(db(), user.userId));
  });

  it('tops up before answering 402 when the balance cannot cover a request', async () => {
    const user = await account(1, { amount: 10, threshold: 0 });
    expect((await stage(user.key, 10)).status).toBe(200);
    expect(await creditsOf(server.api, user.key)).toBe(1);
    const response = await stage(user.key, 2);
    expect(response.status).toBe(200);
    expect(response.body.credits_remaining).toBe(1 + 10 - 2);
    expect(await events(user.userId, 'auto_topup.success')).toHaveLength(1);
    expectBooksAgree(await readBooks(db(), user.userId));
  });

  it('after a declined card emits one auto_topup.failed, pauses, answers no_credits at zero, and pauses longer after the next failure', async () => {
    const user = await account(1, { amount: 20, threshold: 15 }, 'declines_off_session');
    expect((await stage(user.key)).status).toBe(200);
    await server.services.autoTopUp.drain();
    const failed = await events(user.userId, 'auto_topup.failed');
    expect(failed).toEqual([{ amount: 20, current_balance: 10, reason: 'card_declined' }]);
    // The owner hears of it by e-mail too, written with the failure.
    const [mail] = await outboxFor(server, user.email, 'auto_topup_failed');
    expect(mail?.text_body).toContain('card declined');
    const paused = (await server.api.get('/api/v1/billing', { token: user.token })).body.auto_topup;
    expect(paused).toMatchObject({ enabled: true, last_failure_reason: 'card_declined' });
    const pausedFor = Date.parse(paused.paused_until) - server.clock.now();
    expect(pausedFor).toBeGreaterThan(HOUR - 60_000);
    expect(pausedFor).toBeLessThanOrEqual(HOUR);

    // Spending down to zero while paused tries no charge and emits nothing more.
    expect((await stage(user.key, 10)).status).toBe(200);
    await server.services.autoTopUp.drain();
    const refused = await stage(user.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: 'no_credits', error: 'no credits remaining', credits_remaining: 0 });
    expect(await events(user.userId, 'auto_topup.failed')).toHaveLength(1);
    expect(await attempts(user.userId)).toHaveLength(1);

    // Once the pause is over, the next request tries again: declined again, one more event, a 6 h pause.
    server.clock.advance(HOUR + 1000);
    const again = await stage(user.key);
    expect(again.status).toBe(402);
    expect(again.body.code).toBe('no_credits');
    expect(await events(user.userId, 'auto_topup.failed')).toHaveLength(2);
    const longer = (await server.api.get('/api/v1/billing', { token: user.token })).body.auto_topup;
    expect(Date.parse(longer.paused_until) - server.clock.now()).toBeGreaterThan(5 * HOUR);

    // Saving the settings ends the pause.
    const saved = await server.api.put('/api/v1/settings/auto-topup', {
      token: user.token,
      json: { enabled: true, amount: 20, threshold: 15 },
    });
    expect(saved.body.paused_until).toBeNull();
    expectBooksAgree(await readBooks(db(), user.userId));
  });

  it('stops at the monthly limit: auto_topup.failed with monthly_limit_reached, once, and no charge', async () => {
    const user = await account(1, { amount: 20, threshold: 15, monthly_limit: 30 });
    // 11 → 10, below 15: one top-up of 20.
    expect((await stage(user.key)).status).toBe(200);
    await server.services.autoTopUp.drain();
    expect(await creditsOf(server.api, user.key)).toBe(30);
    expect((await stage(user.key, 10)).status).toBe(200);
    await server.services.autoTopUp.drain();
    // 20 → 14, below 15 again: another 20 would make 40 this month, over the limit of 30.
    expect((await stage(user.key, 6)).status).toBe(200);
    await server.services.autoTopUp.drain();
    expect((await stage(user.key)).status).toBe(200);
    await server.services.autoTopUp.drain();

    expect(await events(user.userId, 'auto_topup.success')).toHaveLength(1);
    expect(await events(user.userId, 'auto_topup.failed')).toEqual([
      { amount: 20, current_balance: 14, reason: 'monthly_limit_reached' },
    ]);
    expect(await creditsOf(server.api, user.key)).toBe(13);
    const state = (await server.api.get('/api/v1/settings/auto-topup', { token: user.token })).body;
    expect(state).toMatchObject({
      enabled: true,
      monthly_limit: 30,
      last_failure_reason: 'monthly_limit_reached',
      paused_until: expect.any(String),
    });
    expect(new Date(state.paused_until).getUTCDate()).toBe(1);
    expectBooksAgree(await readBooks(db(), user.userId));
  });

  it('refuses settings that cannot work, saying why, and saves nothing', async () => {
    const user = await account(1, { amount: 100, threshold: 30, monthly_limit: 500 });
    const put = (json: Record<string, unknown>) =>
      server.api.put('/api/v1/settings/auto-topup', { token: user.token, json });
    const trap = await put({ enabled: true, amount: 10, threshold: 5000 });
    expect(trap.status).toBe(400);
    expect(trap.body).toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'threshold', message: expect.stringMatching(/must be below the credits bought each time/) }],
    });
    expect((await put({ enabled: true, amount: 50, threshold: 50 })).status).toBe(400);
    const cap = await put({ enabled: true, amount: 100, threshold: 30, monthly_limit: 50 });
    expect(cap.status).toBe(400);
    expect(cap.body.details).toEqual([
      { path: 'monthly_limit', message: expect.stringMatching(/at least the credits bought each time/) },
    ]);
    // Omitting monthly_limit keeps the saved one (500), which a larger amount would now exceed.
    const omitted = await put({ enabled: true, amount: 600, threshold: 30 });
    expect(omitted.status).toBe(400);
    expect(omitted.body.details[0].path).toBe('monthly_limit');
    expect((await server.api.get('/api/v1/settings/auto-topup', { token: user.token })).body).toMatchObject({
      amount: 100,
      threshold: 30,
      monthly_limit: 500,
    });
  });

  it('answers insufficient_credits, not no_credits, when auto top-up is off', async () => {
    const user = await signUpWithKey(server.api);
    const response = await stage(user.key, 10);
    expect(response.status).toBe(200);
    const refused = await stage(user.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: 'insufficient_credits', credits_required: 1, credits_available: 0 });
    expect(await attempts(user.userId)).toEqual([]);
  });
});

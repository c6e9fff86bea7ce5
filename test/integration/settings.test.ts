import { beforeAll, expect, it } from 'vitest';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import { inTransaction } from '../../db/transaction.js';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';

describeEachDatabase('Settings: notifications and the low-balance event', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(400, 300);
  });

  const stage = async (key: string) =>
    expect((await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) })).status).toBe(
      200,
    );
  const lowBalanceEvents = async (accountId: string) =>
    (
      await server.services.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('account_id', '=', accountId)
        .where('event', '=', 'credits.low')
        .orderBy('created_at')
        .execute()
    ).map((row) => JSON.parse(row.payload).data);
  const buy = (accountId: string, credits: number) =>
    inTransaction(server.services.db, (trx) =>
      changeCredits(trx, { accountId, delta: credits, reason: 'purchase', now: server.clock.now() }),
    );

  it('shows the defaults of a new account: auto top-up off and a low-balance threshold of 5', async () => {
    const { token } = await signUp(server.api);
    const settings = await server.api.get('/api/v1/settings', { token });
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({
      auto_topup: { enabled: false, amount: 50, threshold: 10 },
      notifications: { low_balance_threshold: 5 },
    });
    const notifications = await server.api.get('/api/v1/settings/notifications', { token });
    expect(notifications.status).toBe(200);
    expect(notifications.body).toEqual({ low_balance_threshold: 5 });
  });

  it('saves a new low-balance threshold and shows it in both settings views', async () => {
    const { token } = await signUp(server.api);
    const put = await server.api.put('/api/v1/settings/notifications', {
      token,
      json: { low_balance_threshold: 100_000 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ low_balance_threshold: 100_000 });
    expect((await server.api.get('/api/v1/settings/notifications', { token })).body).toEqual({
      low_balance_threshold: 100_000,
    });
    expect((await server.api.get('/api/v1/settings', { token })).body.notifications).toEqual({
      low_balance_threshold: 100_000,
    });
    const zero = await server.api.put('/api/v1/settings/notifications', { token, json: { low_balance_threshold: 0 } });
    expect(zero.body).toEqual({ low_balance_threshold: 0 });
  });

  it('refuses thresholds outside 0–100 000 with invalid_request and keeps the old one', async () => {
    const { token } = await signUp(server.api);
    await server.api.put('/api/v1/settings/notifications', { token, json: { low_balance_threshold: 7 } });
    for (const body of [
      { low_balance_threshold: -1 },
      { low_balance_threshold: 100_001 },
      { low_balance_threshold: 2.5 },
      { low_balance_threshold: 'many' },
      {},
    ]) {
      const response = await server.api.put('/api/v1/settings/notifications', { token, json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid request', code: 'invalid_request' });
      expect(response.body.details[0].path).toBe('low_balance_threshold');
    }
    expect((await server.api.get('/api/v1/settings/notifications', { token })).body).toEqual({
      low_balance_threshold: 7,
    });
  });

  it('asks for a sign-in: no token and an API key are both 401', async () => {
    const { key } = await signUpWithKey(server.api);
    for (const token of [undefined, key]) {
      for (const [method, path] of [
        ['GET', '/api/v1/settings'],
        ['GET', '/api/v1/settings/notifications'],
        ['PUT', '/api/v1/settings/notifications'],
      ] as const) {
        const response = await server.api.request(method, path, {
          token,
          json: method === 'PUT' ? { low_balance_threshold: 1 } : undefined,
        });
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('authentication_required');
      }
    }
  });

  it('emits credits.low once when the balance falls below the threshold, not again on each charge below it', async () => {
    const { token, key, userId } = await signUpWithKey(server.api);
    await server.api.put('/api/v1/settings/notifications', { token, json: { low_balance_threshold: 8 } });
    for (let i = 0; i < 4; i++) await stage(key); // 10 → 9 → 8 → 7 (below 8) → 6
    expect(await creditsOf(server.api, key)).toBe(6);
    expect(await lowBalanceEvents(userId)).toEqual([{ current_balance: 7, threshold: 8 }]);

    // Raising the threshold above the balance is no crossing, nor is a charge that starts below it.
    await server.api.put('/api/v1/settings/notifications', { token, json: { low_balance_threshold: 20 } });
    await stage(key); // 6 → 5
    expect(await lowBalanceEvents(userId)).toHaveLength(1);
  });

  it('emits credits.low again after the balance went back above the threshold and fell below it once more', async () => {
    const { token, key, userId } = await signUpWithKey(server.api);
    await server.api.put('/api/v1/settings/notifications', { token, json: { low_balance_threshold: 9 } });
    await stage(key); // 10 → 9: not below
    expect(await lowBalanceEvents(userId)).toEqual([]);
    await stage(key); // 9 → 8: first crossing
    await stage(key); // 8 → 7
    await buy(userId, 3); // 7 → 10: above again
    await stage(key); // 10 → 9
    await stage(key); // 9 → 8: second crossing
    expect(await lowBalanceEvents(userId)).toEqual([
      { current_balance: 8, threshold: 9 },
      { current_balance: 8, threshold: 9 },
    ]);
  });
});

import { expect, it } from 'vitest';
import { inTransaction } from '../../db/transaction.js';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

describeEachDatabase('Billing transactions: the credit ledger in pages', (dialect) => {
  const server = useTestServer(dialect);

  const transactions = (token: string, query = '') => server.api.get(`/api/v1/billing/transactions${query}`, { token });

  /** An account with its signup bonus and `purchases` purchases of 1, 2, 3… credits, all in the same millisecond. */
  async function accountWithLedger(purchases: number) {
    const user = await signUpWithKey(server.api);
    const now = server.clock.now();
    for (let i = 1; i <= purchases; i++) {
      await inTransaction(server.services.db, (trx) =>
        changeCredits(trx, { accountId: user.userId, delta: i, reason: 'purchase', reference: `order-${i}`, now }),
      );
    }
    return user;
  }

  it('lists the newest 25 first, each with its balance after and reference', async () => {
    const user = await accountWithLedger(30);
    const response = await transactions(user.token);
    expect(response.status).toBe(200);
    expect(response.body.has_more).toBe(true);
    expect(response.body.transactions).toHaveLength(25);
    expect(response.body.transactions[0]).toEqual({
      id: expect.stringMatching(/^txn_[0-9A-Za-z]{22}$/),
      delta: 30,
      reason: 'purchase',
      balance_after: 10 + (30 * 31) / 2,
      reference: 'order-30',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(response.body.transactions.map((t: { delta: number }) => t.delta)).toEqual(
      Array.from({ length: 25 }, (_, i) => 30 - i),
    );
  });

  it('pages through every transaction exactly once with starting_after, the last page saying has_more: false', async () => {
    const user = await accountWithLedger(20);
    const seen: Array<{ id: string; delta: number; reason: string }> = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const response = await transactions(user.token, `?limit=6${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.transactions);
      if (!response.body.has_more) break;
      expect(response.body.transactions).toHaveLength(6);
      cursor = response.body.transactions.at(-1).id;
    }
    expect(seen).toHaveLength(21);
    expect(new Set(seen.map((t) => t.id)).size).toBe(21);
    expect(seen.map((t) => t.delta)).toEqual([...Array.from({ length: 20 }, (_, i) => 20 - i), 10]);
    expect(seen.at(-1)).toMatchObject({ reason: 'signup_bonus', delta: 10, balance_after: 10 });
  });

  it('answers an empty page with has_more: false after the oldest transaction, and for an account with none', async () => {
    const user = await accountWithLedger(1);
    const all = (await transactions(user.token)).body;
    expect(all.has_more).toBe(false);
    const after = await transactions(user.token, `?starting_after=${all.transactions.at(-1).id}`);
    expect(after.body).toEqual({ transactions: [], has_more: false });
    const empty = await signUp(server.api);
    expect((await transactions(empty.token)).body).toEqual({ transactions: [], has_more: false });
  });

  it("answers 404 for a starting_after that is unknown or another account's", async () => {
    const mine = await accountWithLedger(1);
    const theirs = await accountWithLedger(1);
    const theirId = (await transactions(theirs.token)).body.transactions[0].id;
    for (const cursor of [theirId, 'txn_999999999', 'txn_abc', 'nonsense']) {
      const response = await transactions(mine.token, `?starting_after=${cursor}`);
      expect(response.status, cursor).toBe(404);
      expect(response.body).toMatchObject({ error: 'not found', code: 'not_found' });
    }
  });

  it('refuses a limit outside 1–100 with invalid_request', async () => {
    const { token } = await signUp(server.api);
    for (const limit of ['0', '101', '-3', 'ten', '2.5']) {
      const response = await transactions(token, `?limit=${limit}`);
      expect(response.status, limit).toBe(400);
      expect(response.body).toMatchObject({
        code: 'invalid_request',
        details: [expect.objectContaining({ path: 'limit' })],
      });
    }
    expect((await transactions(token, '?limit=100')).status).toBe(200);
  });

  it('asks for a sign-in: no token and an API key are both 401', async () => {
    const { key } = await signUpWithKey(server.api);
    for (const token of [undefined, key])
      expect((await server.api.get('/api/v1/billing/transactions', { token })).status).toBe(401);
  });
});

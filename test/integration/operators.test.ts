import { expect, it } from 'vitest';
import { proceduresOf } from '../../server/adapters/library-internals.js';
import { countImageFailure } from '../../server/domain/staging/failures.js';
import { AppError } from '../../server/errors.js';
import { adminRouter } from '../../server/routers/admin.js';
import type { Meta } from '../../server/trpc/index.js';
import { signUp, signUpWithKey, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmailOf, outboxFor } from '../fixtures/mail.js';
import { creditBooks, operatorToken as operatorTokenOf, purchasesOf } from '../helpers/operators.js';
import { dataUrl, roomJpeg } from '../fixtures/images.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR = uniqueEmail('operator');

describeEachDatabase('Operators', (dialect) => {
  const server = useTestServer(dialect, { env: { OPERATOR_EMAILS: ` Someone@else.test, ${OPERATOR.toUpperCase()}` } });

  const operatorToken = () => operatorTokenOf(server, OPERATOR);
  const books = (accountId: string) => creditBooks(server, accountId);

  it('answers every admin path with the unknown-path 404 to anyone but a verified operator, owners included', async () => {
    // Every sign-up owns its personal account: the stranger asks about the very account they own.
    const stranger = await signUp(server.api);
    await confirmEmailOf(server, stranger.token);
    const unverifiedOperator = await signUp(server.api, 'someone@else.test');
    const paths = proceduresOf<Meta>(adminRouter).map(({ meta }) => meta!.openapi!);
    expect(paths.length).toBeGreaterThan(10);
    for (const { method, path } of paths) {
      const url = path.replace(/\{[^}]+\}/g, stranger.userId);
      for (const token of [undefined, stranger.token, unverifiedOperator.token]) {
        const send = method === 'GET' ? server.api.get(url, { token }) : server.api.post(url, { token, json: {} });
        const response = await send;
        expect(response.status, `${method} ${url}`).toBe(404);
        expect(response.body).toEqual({
          error: 'not found',
          code: 'not_found',
          message: 'No such endpoint. See /api/v1/openapi.json for the list of endpoints.',
        });
      }
    }
    const unknown = await server.api.post('/api/v1/admin/nothing-here', { token: stranger.token, json: {} });
    expect(unknown.body).toEqual(
      (await server.api.post('/api/v1/admin/search', { token: stranger.token, json: {} })).body,
    );
  });

  it('finds an account by e-mail, id and key prefix, and grants and deducts credits, never below zero', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    const prefix = customer.key.slice(0, 12);
    for (const q of [customer.email, customer.userId, prefix, customer.key]) {
      const found = await server.api.get(`/api/v1/admin/search?q=${encodeURIComponent(q)}`, { token });
      expect(found.status).toBe(200);
      expect(found.body.accounts.map((a: { id: string }) => a.id)).toEqual([customer.userId]);
    }
    const grant = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: 25, reason: 'goodwill for an outage' },
    });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ credits: 35, transaction: { delta: 25, reason: 'adjustment' } });
    expect(await books(customer.userId)).toEqual({ credits: 35, ledger: 35 });

    const tooMuch = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: -36, reason: 'oops' },
    });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.code).toBe('conflict');
    expect(await books(customer.userId)).toEqual({ credits: 35, ledger: 35 });

    const deduct = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: -35, reason: 'fraudulent bonus' },
    });
    expect(deduct.body.credits).toBe(0);
    expect(await books(customer.userId)).toEqual({ credits: 0, ledger: 0 });

    const noReason = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: 1, reason: '' },
    });
    expect(noReason.status).toBe(400);

    const log = await server.api.get('/api/v1/audit-log?action=operator.credits_adjusted', { token: customer.token });
    expect(log.body.entries).toHaveLength(2);
    expect(log.body.entries[0]).toMatchObject({
      actor: { type: 'operator', label: OPERATOR },
      details: { delta: -35, reason: 'fraudulent bonus' },
    });
  });

  it('suspends an account: its key and its session are refused at once, and work again once restored', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
    const suspend = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/suspend`, {
      token,
      json: { reason: 'card testing' },
    });
    expect(suspend.body).toEqual({ status: 'suspended' });
    const byKey = await server.api.get('/api/v1/credits', { token: customer.key });
    const bySession = await server.api.get('/api/v1/keys', { token: customer.token });
    for (const refused of [byKey, bySession]) {
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('account_suspended');
    }
    const found = await server.api.get(`/api/v1/admin/search?q=${encodeURIComponent(customer.email)}`, { token });
    expect(found.body.accounts[0].status).toBe('suspended');

    await server.api.post(`/api/v1/admin/accounts/${customer.userId}/unsuspend`, {
      token,
      json: { reason: 'cleared' },
    });
    expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
    expect((await server.api.get('/api/v1/keys', { token: customer.token })).status).toBe(200);
  });

  it('refunds a simulated purchase, taking back only the credits still there and reporting the rest', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    await confirmEmailOf(server, customer.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', {
      token: customer.token,
      json: { credits: 20 },
    });
    expect((await server.api.get(new URL(checkout.body.checkout_url).pathname)).status).toBe(200);
    expect(await books(customer.userId)).toEqual({ credits: 30, ledger: 30 });
    const [purchase] = await purchasesOf(server, customer.userId);
    // 25 of the 30 credits are gone before the refund: only 5 of the purchase's 20 can be taken back.
    await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: -25, reason: 'spent elsewhere' },
    });
    const noReason = await server.api.post(`/api/v1/admin/purchases/${purchase}/refund`, { token, json: {} });
    expect(noReason.status).toBe(400);
    expect(await books(customer.userId)).toEqual({ credits: 5, ledger: 5 });

    const refund = await server.api.post(`/api/v1/admin/purchases/${purchase}/refund`, {
      token,
      json: { reason: 'charged for broken images' },
    });
    expect(refund.status).toBe(200);
    expect(refund.body).toEqual({ refunded_cents: 2_000, credits_deducted: 5, credits_short: 15 });
    expect(await books(customer.userId)).toEqual({ credits: 0, ledger: 0 });
    const again = await server.api.post(`/api/v1/admin/purchases/${purchase}/refund`, {
      token,
      json: { reason: 'twice' },
    });
    expect(again.status).toBe(409);
    expect(await books(customer.userId)).toEqual({ credits: 0, ledger: 0 });
    const unknown = await server.api.post('/api/v1/admin/purchases/txn_nothing/refund', {
      token,
      json: { reason: 'x' },
    });
    expect(unknown.status).toBe(404);

    // The account as the console reads it: the purchase marked refunded, the ledger, the member and the audit entry.
    const detail = (await server.api.get(`/api/v1/admin/accounts/${customer.userId}`, { token })).body;
    expect(detail.purchases).toEqual([expect.objectContaining({ id: purchase, delta: 20, refunded: true })]);
    expect(detail.ledger[0]).toMatchObject({ reason: 'adjustment', balance_after: 0 });
    expect(detail.members).toEqual([
      { user_id: customer.userId, email: customer.email, role: 'owner', email_verified: true },
    ]);
    expect(detail.audit_log[0]).toMatchObject({
      action: 'operator.purchase_refunded',
      target: purchase,
      actor: { type: 'operator', label: OPERATOR },
    });
    expect(detail).toMatchObject({ campaigns: [], products: [], payouts: [], ad_funds_ledger: [] });
  });

  it('adds and takes ad funds as adjustments, never below zero', async () => {
    const token = await operatorToken();
    const brand = await signUp(server.api);
    const adjust = (delta_cents: number) =>
      server.api.post(`/api/v1/admin/accounts/${brand.userId}/ad-funds`, {
        token,
        json: { delta_cents, reason: 'campaign credit' },
      });
    const funds = async () => {
      const [row, ledger] = await Promise.all([
        server.services.db
          .selectFrom('accounts')
          .select('ad_funds_millicents')
          .where('id', '=', brand.userId)
          .executeTakeFirstOrThrow(),
        server.services.db
          .selectFrom('ad_funds_ledger')
          .select((eb) => eb.fn.sum<number>('delta_millicents').as('sum'))
          .where('account_id', '=', brand.userId)
          .executeTakeFirstOrThrow(),
      ]);
      return { balance: Number(row.ad_funds_millicents), ledger: Number(ledger.sum ?? 0) };
    };
    const granted = await adjust(2_500);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({
      balance_cents: 2_500,
      transaction: { delta_millicents: 2_500_000, reason: 'adjustment' },
    });
    expect((await adjust(-2_501)).status).toBe(409);
    expect(await funds()).toEqual({ balance: 2_500_000, ledger: 2_500_000 });
    expect((await adjust(-2_000)).body.balance_cents).toBe(500);
    expect(await funds()).toEqual({ balance: 500_000, ledger: 500_000 });
    const seen = await server.api.get('/api/v1/ads/funds', { token: brand.token });
    expect(seen.body.balance_cents).toBe(500);
  });

  it('pays one payout and rejects another: the earnings add up, the rejected amount is available again, the agent is e-mailed', async () => {
    const token = await operatorToken();
    const agent = await signUp(server.api);
    // $30 earned from impressions on an image the agent redeemed, as the impression billing records it.
    await server.services.db
      .insertInto('earnings_daily')
      .values({
        account_id: agent.userId,
        image_id: 'img_earning',
        day: Math.floor(Date.now() / 86_400_000),
        impressions: 6_000,
        earned_millicents: 3_000_000,
      })
      .execute();
    const earnings = async () => {
      const { available_cents, requested_cents, paid_cents } = (
        await server.api.get('/api/v1/earnings', { token: agent.token })
      ).body;
      expect(available_cents + requested_cents + paid_cents).toBe(3_000);
      return { available_cents, requested_cents, paid_cents };
    };
    const request = (amount_cents: number) =>
      server.api.post('/api/v1/earnings/payouts', { token: agent.token, json: { amount_cents } });
    const first = (await request(1_000)).body.id;
    const second = (await request(1_500)).body.id;
    expect(await earnings()).toEqual({ available_cents: 500, requested_cents: 2_500, paid_cents: 0 });
    const queue = await server.api.get('/api/v1/admin/payouts?status=requested', { token });
    expect(queue.body.payouts.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([first, second]));

    const paid = await server.api.post(`/api/v1/admin/payouts/${first}/paid`, {
      token,
      json: { reference: 'SEPA-20261125-1', reason: 'monthly run' },
    });
    expect(paid.body).toMatchObject({ id: first, status: 'paid', reference: 'SEPA-20261125-1', email: agent.email });
    expect(await earnings()).toEqual({ available_cents: 500, requested_cents: 1_500, paid_cents: 1_000 });
    const rejected = await server.api.post(`/api/v1/admin/payouts/${second}/reject`, {
      token,
      json: { reason: 'bank details do not match' },
    });
    expect(rejected.body).toMatchObject({ id: second, status: 'rejected', paid_at: null });
    expect(await earnings()).toEqual({ available_cents: 2_000, requested_cents: 0, paid_cents: 1_000 });
    expect(
      (await server.api.post(`/api/v1/admin/payouts/${second}/paid`, { token, json: { reason: 'x' } })).status,
    ).toBe(409);
    expect(await earnings()).toEqual({ available_cents: 2_000, requested_cents: 0, paid_cents: 1_000 });

    const mail = await outboxFor(server, agent.email);
    const paidMail = mail.find((m) => m.kind === 'payout_paid');
    const rejectedMail = mail.find((m) => m.kind === 'payout_rejected');
    expect(paidMail?.subject).toBe('Your Roomstage payout of $10.00 is on its way');
    expect(paidMail?.text_body).toContain('Payment reference: SEPA-20261125-1.');
    expect(rejectedMail?.subject).toBe('Your Roomstage payout request of $15.00 was not paid');
    expect(rejectedMail?.html_body).toContain('back in your available earnings');
    const log = await server.api.get('/api/v1/audit-log', { token: agent.token });
    expect(log.body.entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['operator.payout_paid', 'operator.payout_rejected']),
    );
  });

  it('reports the fleet over the days asked for, today counting the images made and the credits sold', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    const staged = await server.api.post('/api/v1/stage', {
      token: customer.key,
      json: { image: dataUrl(await roomJpeg(640, 480)), style: 'modern' },
    });
    expect(staged.status).toBe(200);
    await confirmEmailOf(server, customer.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', {
      token: customer.token,
      json: { credits: 20 },
    });
    expect((await server.api.get(new URL(checkout.body.checkout_url).pathname)).status).toBe(200);
    const fleet = await server.api.get('/api/v1/admin/fleet?days=3', { token });
    expect(fleet.status).toBe(200);
    expect(fleet.body.daily).toHaveLength(3);
    expect(fleet.body).toMatchObject({ webhook_backlog: expect.any(Number), holds_outstanding: expect.any(Number) });
    // Each epoch-ms time falls on a whole UTC day (SQLite once divided it into a fraction and matched no day).
    const today = fleet.body.daily.at(-1);
    const images = Object.values(today.images_by_engine as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(images).toBeGreaterThanOrEqual(1);
    expect(today.credits_sold).toBeGreaterThanOrEqual(20);
    // The engine's timing of the staged image is stored with it and read back as the day's percentiles.
    const [timed] = await server.services.db
      .selectFrom('images')
      .select('engine_ms')
      .where('id', '=', staged.body.images[0].id)
      .execute();
    expect(timed?.engine_ms).toEqual(expect.any(Number));
    expect(today.engine_p50_ms).toEqual(expect.any(Number));
    expect(today.engine_p95_ms).toBeGreaterThanOrEqual(today.engine_p50_ms);
  });

  it("counts failed image requests per engine and code, and not the client's own mistakes", async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    const before = (await server.api.get('/api/v1/admin/fleet?days=1', { token })).body.daily[0];
    // A damaged image is the client's mistake (422 invalid_image): refunded, and not the engine's failure.
    const damaged = await server.api.post('/api/v1/stage', {
      token: customer.key,
      json: { image: dataUrl((await roomJpeg(640, 480)).subarray(0, 2_000)) },
    });
    expect(damaged.status).toBeGreaterThanOrEqual(400);
    const now = server.clock.now();
    for (const code of ['engine_unavailable', 'engine_unavailable', 'structure_changed'] as const)
      await countImageFailure(server.services.db, { engine: 'replicate', error: new AppError(code, 'failed'), now });
    await countImageFailure(server.services.db, { engine: 'replicate', error: new Error('a bug'), now });
    const today = (await server.api.get('/api/v1/admin/fleet?days=1', { token })).body.daily[0];
    expect(today.failures - before.failures).toBe(4);
    expect((today.failures_by_engine.replicate ?? 0) - (before.failures_by_engine.replicate ?? 0)).toBe(4);
    const added = (code: string) => (today.failures_by_code[code] ?? 0) - (before.failures_by_code[code] ?? 0);
    expect(['engine_unavailable', 'structure_changed', 'internal_error'].map(added)).toEqual([2, 1, 1]);
    expect(today.failures_by_code.invalid_image).toBeUndefined();
  });
});

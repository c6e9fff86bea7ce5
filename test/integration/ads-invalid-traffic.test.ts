import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserAgent, fetchFrom, loopbackAddress, moneyProblems, placedListing, sofaPng } from '../fixtures/ads.js';
import { signUp, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, onServer } from '../fixtures/images.js';
import { confirmEmail } from '../fixtures/mail.js';
import { operatorToken } from '../helpers/operators.js';
import { startImagingServer } from '../helpers/staging.js';

const OPERATOR = uniqueEmail('traffic-operator');
const DAY_MS = 86_400_000;
const HOLD_MS = 7 * DAY_MS;

/**
 * The attacks on ad money from the outside audit, each against a real server: a farm of User-Agents behind one
 * address, bots and prefetches, the listing's own people loading it, paying out before invalid traffic can be found,
 * and the operator's refund of invalid traffic (exact, once, also when two operators declare it at once).
 */
describeEachDatabase('Invalid ad traffic', (dialect) => {
  let server: Awaited<ReturnType<typeof startImagingServer>>;
  let nextAddress = 0;
  /** A client address no other test used: each stands for another machine. */
  const freshAddress = () => loopbackAddress(10_000 + nextAddress++);
  beforeAll(async () => {
    server = await startImagingServer(dialect, { env: { OPERATOR_EMAILS: OPERATOR } });
  });
  afterAll(async () => {
    await server?.close();
    await server?.dropDatabase();
  });

  /** A brand with a sofa campaign at `cpmCents` (milli-cents an impression) and $100 of funds. */
  async function brandWithCampaign(cpmCents: number, totalBudgetCents = 10_000) {
    const brand = await signUp(server.api);
    await confirmEmail(server, brand.email);
    const product = await server.api.post('/api/v1/ads/products', {
      token: brand.token,
      body: imageForm([{ data: await sofaPng(), type: 'image/png', name: 'sofa.png' }], {
        name: 'Cloud Sofa',
        brand: 'Brandco',
        category: 'sofa',
        room_types: 'living_room',
      }),
    });
    expect(product.status).toBe(201);
    const checkout = await server.api.post('/api/v1/ads/funds/checkout', {
      token: brand.token,
      json: { amount_cents: 10_000 },
    });
    expect((await fetch(new URL(onServer(checkout.body.checkout_url), server.url))).status).toBe(200);
    const campaign = await server.api.post('/api/v1/ads/campaigns', {
      token: brand.token,
      json: {
        name: 'Launch',
        product_ids: [product.body.id],
        cpm_cents: cpmCents,
        total_budget_cents: totalBudgetCents,
      },
    });
    expect(campaign.status).toBe(201);
    // Only this brand's campaign is placed from here on.
    await server.services.db
      .updateTable('campaigns')
      .set({ status: 'paused' })
      .where('id', '!=', campaign.body.id)
      .execute();
    return { ...brand, productId: product.body.id as string, campaignId: campaign.body.id as string };
  }

  async function campaignOf(brand: { token: string; campaignId: string }) {
    return (await server.api.get(`/api/v1/ads/campaigns/${brand.campaignId}`, { token: brand.token })).body;
  }

  const load = (path: string, address: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetchFrom(address, new URL(path, server.url), {
      method,
      headers: { 'user-agent': browserAgent(1), ...headers },
    });

  /** `count` viewers at fresh addresses, 20 at a time. */
  async function loadFromMany(path: string, count: number) {
    for (let done = 0; done < count; done += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, count - done) }, () => load(path, freshAddress())).map(async (loaded) =>
          expect((await loaded).status).toBe(200),
        ),
      );
  }

  const today = () => new Date(server.clock.now()).toISOString().slice(0, 10);

  it('bills one impression for 40 loads from one address that rotates its User-Agent (and its X-Forwarded-For)', async () => {
    const brand = await brandWithCampaign(1_000);
    const listing = await placedListing(server.api);
    const farm = freshAddress();
    for (let i = 0; i < 40; i++) {
      const response = await load(listing.imagePath, farm, {
        'user-agent': browserAgent(i),
        // Without TRUST_PROXY the header is the client's own claim and changes nothing.
        'x-forwarded-for': `203.0.113.${i + 1}`,
      });
      expect(response.status).toBe(200);
    }
    expect(await campaignOf(brand)).toMatchObject({ impressions: 1, spent_cents: 1 });
    // The same address a day later is a viewer again.
    server.clock.advance(DAY_MS + 1);
    await load(listing.imagePath, farm, { 'user-agent': browserAgent(99) });
    expect(await campaignOf(brand)).toMatchObject({ impressions: 2, spent_cents: 2 });
    // Another address is another viewer.
    await load(listing.imagePath, freshAddress());
    expect(await campaignOf(brand)).toMatchObject({ impressions: 3, spent_cents: 3 });
    expect(await moneyProblems(server.services.db)).toEqual([]);
  });

  it('serves bots, crawlers, prefetches, link previews and HEAD requests without billing them', async () => {
    const brand = await brandWithCampaign(1_000);
    const listing = await placedListing(server.api);
    const unbilled: Array<[Record<string, string>, string]> = [
      [{ 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }, 'GET'],
      [{ 'user-agent': 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)' }, 'GET'],
      [{ 'user-agent': 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' }, 'GET'],
      [{ 'user-agent': 'curl/8.5.0' }, 'GET'],
      [{ 'user-agent': 'python-requests/2.31.0' }, 'GET'],
      [{ 'sec-purpose': 'prefetch' }, 'GET'],
      [{ 'sec-purpose': 'prefetch;prerender' }, 'GET'],
      [{ purpose: 'prefetch' }, 'GET'],
      [{ 'x-moz': 'prefetch' }, 'GET'],
      [{ 'x-purpose': 'preview' }, 'GET'],
      [{}, 'HEAD'],
    ];
    for (const [headers, method] of unbilled) {
      const response = await load(listing.imagePath, freshAddress(), headers, method);
      expect(response.status, JSON.stringify(headers)).toBe(200);
      if (method === 'GET') expect(response.body.length).toBeGreaterThan(0);
    }
    expect(await campaignOf(brand)).toMatchObject({ impressions: 0, unbilled_impressions: 0, spent_cents: 0 });
    // A person's browser at an address a bot used is billed.
    await load(listing.imagePath, freshAddress());
    expect(await campaignOf(brand)).toMatchObject({ impressions: 1 });
  });

  it('never bills the listing’s own people: members of the staging account or of the agent account, signed in', async () => {
    const brand = await brandWithCampaign(1_000);
    const listing = await placedListing(server.api);
    for (const token of [listing.company.token, listing.agentToken]) {
      const response = await load(listing.imagePath, freshAddress(), { cookie: `roomstage_session=${token}` });
      expect(response.status).toBe(200);
    }
    expect(await campaignOf(brand)).toMatchObject({ impressions: 0 });
    // Someone else signed in is a viewer like any other; so is a made-up session cookie.
    const stranger = await signUp(server.api);
    await load(listing.imagePath, freshAddress(), { cookie: `roomstage_session=${stranger.token}` });
    await load(listing.imagePath, freshAddress(), { cookie: 'roomstage_session=forged' });
    expect(await campaignOf(brand)).toMatchObject({ impressions: 2 });
  });

  it('holds the agent’s earnings for EARNINGS_HOLD: nothing is payable before it passes', async () => {
    // 10 000 milli-cents an impression, 5 cents of it the agent's: 220 viewers earn the agent $11.
    await brandWithCampaign(10_000);
    const listing = await placedListing(server.api);
    await loadFromMany(listing.imagePath, 220);
    const earnings = () => server.api.get('/api/v1/earnings', { token: listing.agentToken });
    expect((await earnings()).body).toMatchObject({ available_cents: 0, pending_cents: 1_100 });
    const payout = () =>
      server.api.post('/api/v1/earnings/payouts', { token: listing.agentToken, json: { amount_cents: 1_000 } });
    const early = await payout();
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'conflict', available_cents: 0, pending_cents: 1_100 });
    server.clock.advance(HOLD_MS - 60_000);
    expect((await payout()).status).toBe(409);
    server.clock.advance(60_001);
    expect((await earnings()).body).toMatchObject({ available_cents: 1_100, pending_cents: 0 });
    const paid = await payout();
    expect(paid.status).toBe(201);
    expect((await earnings()).body).toMatchObject({ available_cents: 100, pending_cents: 0, requested_cents: 1_000 });
  });

  it('refunds a declared address exactly, takes the agent’s share back, and refunds nothing the second time', async () => {
    // An odd cpm: 1 001 milli-cents an impression, 500 to the agent and 501 to the service.
    const brand = await brandWithCampaign(1_001);
    const listing = await placedListing(server.api);
    const farm = freshAddress();
    const others = [freshAddress(), freshAddress(), freshAddress()];
    for (const address of [farm, ...others]) await load(listing.imagePath, address);
    const token = await operatorToken(server, OPERATOR);
    const fundsBefore = (await server.api.get('/api/v1/ads/funds', { token: brand.token })).body.balance_cents;
    const declare = (body: Record<string, unknown>) =>
      server.api.post(`/api/v1/admin/campaigns/${brand.campaignId}/invalid-traffic`, { token, json: body });

    const first = await declare({ date: today(), address: farm, reason: 'one address, 40 user agents' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^ivt_/),
      campaign_id: brand.campaignId,
      date: today(),
      address: farm,
      invalid_impressions: 1,
      refunded_millicents: 1_001,
      earnings_taken_back_millicents: 500,
    });
    const again = await declare({ date: today(), address: farm, reason: 'declared twice' });
    expect(again.body).toMatchObject({ invalid_impressions: 0, refunded_millicents: 0 });

    expect(await campaignOf(brand)).toMatchObject({ impressions: 3, invalid_impressions: 1 });
    const campaignRow = await server.services.db
      .selectFrom('campaigns')
      .select(['spent_millicents', 'spent_today_millicents'])
      .where('id', '=', brand.campaignId)
      .executeTakeFirstOrThrow();
    expect(Number(campaignRow.spent_millicents)).toBe(3 * 1_001);
    expect(Number(campaignRow.spent_today_millicents)).toBe(3 * 1_001);
    const funds = await server.api.get('/api/v1/ads/funds', { token: brand.token });
    // 4 004 spent, 1 001 back: the balance in cents moves by the rounding of the milli-cents only.
    const ledger = funds.body.transactions as Array<{ reason: string; delta_millicents: number }>;
    expect(ledger.filter((t) => t.reason === 'adjustment').map((t) => t.delta_millicents)).toEqual([1_001]);
    expect(funds.body.balance_cents).toBe(Math.floor((10_000 * 1_000 - 3 * 1_001) / 1_000));
    expect(fundsBefore).toBe(Math.floor((10_000 * 1_000 - 4 * 1_001) / 1_000));

    const report = (await server.api.get('/api/v1/ads/report', { token: brand.token })).body;
    expect(report.daily.at(-1)).toMatchObject({ impressions: 3, invalid_impressions: 1, unbilled_impressions: 0 });
    expect(report.campaigns[0]).toMatchObject({ impressions: 3, invalid_impressions: 1 });
    const earnings = (await server.api.get('/api/v1/earnings', { token: listing.agentToken })).body;
    expect(earnings.images[0]).toMatchObject({ impressions: 3, invalid_impressions: 1, earned_cents: 1 });
    expect(earnings.daily.at(-1)).toMatchObject({ impressions: 3, invalid_impressions: 1 });
    const agentEarned = await server.services.db
      .selectFrom('earnings_daily')
      .select('earned_millicents')
      .where('image_id', '=', earnings.images[0].image_id)
      .executeTakeFirstOrThrow();
    expect(Number(agentEarned.earned_millicents)).toBe(3 * 500);
    expect(await moneyProblems(server.services.db)).toEqual([]);

    // The advertiser's audit log names the operator, the reason and the figures; the agent's the share taken back.
    const advertiserLog = await server.api.get('/api/v1/audit-log?action=operator.invalid_traffic_declared', {
      token: brand.token,
    });
    expect(advertiserLog.body.entries).toHaveLength(2);
    expect(advertiserLog.body.entries[1]).toMatchObject({
      actor: { type: 'operator', label: OPERATOR },
      target: brand.campaignId,
      details: expect.objectContaining({ reason: 'one address, 40 user agents', refunded_millicents: 1_001 }),
    });
    const agentLog = await server.api.get('/api/v1/audit-log?action=operator.earnings_taken_back', {
      token: listing.agentToken,
    });
    expect(agentLog.body.entries).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'operator', label: OPERATOR }),
        details: expect.objectContaining({ taken_back_millicents: 500, invalid_impressions: 1 }),
      }),
    ]);
  });

  it('refunds a day once when two operators declare it at the same time', async () => {
    const brand = await brandWithCampaign(1_001);
    const listing = await placedListing(server.api);
    for (let i = 0; i < 6; i++) await load(listing.imagePath, freshAddress());
    const token = await operatorToken(server, OPERATOR);
    const declarations = await Promise.all(
      [0, 1, 2].map(() =>
        server.api.post(`/api/v1/admin/campaigns/${brand.campaignId}/invalid-traffic`, {
          token,
          json: { date: today(), reason: 'a click farm all day' },
        }),
      ),
    );
    expect(declarations.map((d) => d.status)).toEqual([200, 200, 200]);
    const refunded = declarations.map((d) => d.body.refunded_millicents as number);
    expect(refunded.reduce((a, b) => a + b, 0)).toBe(6 * 1_001);
    expect(refunded.filter((n) => n > 0)).toEqual([6 * 1_001]);
    expect(await campaignOf(brand)).toMatchObject({ impressions: 0, invalid_impressions: 6, spent_cents: 0 });
    const funds = await server.api.get('/api/v1/ads/funds', { token: brand.token });
    expect(funds.body.balance_cents).toBe(10_000);
    const earnings = (await server.api.get('/api/v1/earnings', { token: listing.agentToken })).body;
    expect(earnings).toMatchObject({ available_cents: 0, pending_cents: 0 });
    expect(await moneyProblems(server.services.db)).toEqual([]);
  });

  it('takes back only what the agent has not been paid: the rest is the service’s loss, and the books still add up', async () => {
    // 10 000 milli-cents an impression, 5 000 of them the agent's.
    const brand = await brandWithCampaign(10_000);
    const listing = await placedListing(server.api);
    const day = today();
    await loadFromMany(listing.imagePath, 220);
    server.clock.advance(HOLD_MS + 1);
    // $11 earned, $10 of it asked for: $1 (100 000 milli-cents) is all that can still be taken back.
    const payout = await server.api.post('/api/v1/earnings/payouts', {
      token: listing.agentToken,
      json: { amount_cents: 1_000 },
    });
    expect(payout.status).toBe(201);
    const token = await operatorToken(server, OPERATOR);
    const declared = await server.api.post(`/api/v1/admin/campaigns/${brand.campaignId}/invalid-traffic`, {
      token,
      json: { date: day, reason: 'found after the payout' },
    });
    expect(declared.body).toMatchObject({
      invalid_impressions: 220,
      refunded_millicents: 220 * 10_000,
      earnings_taken_back_millicents: 100_000,
    });
    const earnings = (await server.api.get('/api/v1/earnings', { token: listing.agentToken })).body;
    expect(earnings).toMatchObject({ available_cents: 0, pending_cents: 0, requested_cents: 1_000 });
    expect((await server.api.get('/api/v1/ads/funds', { token: brand.token })).body.balance_cents).toBe(10_000);
    expect(await moneyProblems(server.services.db)).toEqual([]);
  });

  it('never takes back what a payout asked for at the same moment: the agent’s balances stay whole either way', async () => {
    const brand = await brandWithCampaign(10_000);
    const listing = await placedListing(server.api);
    const day = today();
    await loadFromMany(listing.imagePath, 220);
    server.clock.advance(HOLD_MS + 1);
    const token = await operatorToken(server, OPERATOR);
    const [payout, declared] = await Promise.all([
      server.api.post('/api/v1/earnings/payouts', { token: listing.agentToken, json: { amount_cents: 1_000 } }),
      server.api.post(`/api/v1/admin/campaigns/${brand.campaignId}/invalid-traffic`, {
        token,
        json: { date: day, reason: 'raced with a payout' },
      }),
    ]);
    expect(declared.status).toBe(200);
    const earnings = (await server.api.get('/api/v1/earnings', { token: listing.agentToken })).body;
    if (payout.status === 201) {
      // The payout came first: only the $1 not asked for goes back.
      expect(declared.body.earnings_taken_back_millicents).toBe(100_000);
      expect(earnings).toMatchObject({ available_cents: 0, requested_cents: 1_000 });
    } else {
      // The declaration came first: all $11 went back and there is nothing to pay.
      expect(payout.status).toBe(409);
      expect(declared.body.earnings_taken_back_millicents).toBe(1_100_000);
      expect(earnings).toMatchObject({ available_cents: 0, requested_cents: 0 });
    }
    expect(await moneyProblems(server.services.db)).toEqual([]);
  });

  it('refuses a declaration without a readable reason, a bad date or address, or an unknown campaign', async () => {
    const brand = await brandWithCampaign(1_000);
    const token = await operatorToken(server, OPERATOR);
    const path = `/api/v1/admin/campaigns/${brand.campaignId}/invalid-traffic`;
    for (const reason of ['\u200b', ' \u200b\u200c\u2060 ', '   ', '\u00a0', '...', '\ufeff']) {
      const refused = await server.api.post(path, { token, json: { date: today(), reason } });
      expect({ status: refused.status, code: refused.body.code }, JSON.stringify(reason)).toEqual({
        status: 400,
        code: 'invalid_request',
      });
    }
    // The same rule holds for every operator change: the reason schema is shared.
    const credits = await server.api.post(`/api/v1/admin/accounts/${brand.userId}/credits`, {
      token,
      json: { delta: 5, reason: '\u200b' },
    });
    expect(credits.status).toBe(400);
    for (const body of [
      { date: '2026-02-30', reason: 'bad date' },
      { date: 'yesterday', reason: 'bad date' },
      { date: today(), address: 'not-an-address', reason: 'bad address' },
    ]) {
      expect((await server.api.post(path, { token, json: body })).status).toBe(400);
    }
    const unknown = await server.api.post('/api/v1/admin/campaigns/cmp_nope/invalid-traffic', {
      token,
      json: { date: today(), reason: 'unknown campaign' },
    });
    expect(unknown.status).toBe(404);
    const audit = await server.api.get('/api/v1/audit-log?action=operator.invalid_traffic_declared', {
      token: brand.token,
    });
    expect(audit.body.entries).toEqual([]);
    const stranger = await signUp(server.api);
    expect((await server.api.post(path, { token: stranger.token, json: { date: today(), reason: 'me' } })).status).toBe(
      404,
    );
  });

  it('audits money moves with who made them: funds bought, products and campaigns made and changed, payouts asked, invites revoked', async () => {
    const brand = await brandWithCampaign(1_000);
    const update = await server.api.request('PATCH', `/api/v1/ads/campaigns/${brand.campaignId}`, {
      token: brand.token,
      json: { status: 'paused', total_budget_cents: 20_000 },
    });
    expect(update.status).toBe(200);
    const invite = await server.api.post('/api/v1/members/invites', {
      token: brand.token,
      json: { email: uniqueEmail('invitee'), role: 'viewer' },
    });
    expect(invite.status).toBe(201);
    expect((await server.api.delete(`/api/v1/members/invites/${invite.body.id}`, { token: brand.token })).status).toBe(
      200,
    );
    const log = await server.api.get('/api/v1/audit-log?limit=50', { token: brand.token });
    const byAction = new Map(
      (log.body.entries as Array<{ action: string }>).map((entry) => [entry.action, entry] as const),
    );
    const actor = { type: 'user', id: brand.userId, label: brand.email };
    expect(byAction.get('ads.product_created')).toMatchObject({ actor, target: brand.productId });
    expect(byAction.get('ads.funds_purchased')).toMatchObject({
      actor,
      details: expect.objectContaining({ amount_cents: 10_000 }),
    });
    expect(byAction.get('ads.campaign_created')).toMatchObject({
      actor,
      target: brand.campaignId,
      details: expect.objectContaining({ cpm_cents: 1_000, total_budget_cents: 10_000 }),
    });
    expect(byAction.get('ads.campaign_updated')).toMatchObject({
      actor,
      target: brand.campaignId,
      details: expect.objectContaining({
        status: 'paused',
        previous_status: 'active',
        total_budget_cents: 20_000,
        previous_total_budget_cents: 10_000,
      }),
    });
    expect(byAction.get('member.invite_revoked')).toMatchObject({ actor, target: invite.body.id });

    // A payout request names the member who asked (an agent-role member, not the account's owner).
    await server.services.db
      .insertInto('earnings_daily')
      .values({
        account_id: brand.userId,
        image_id: 'img_audited',
        day: Math.floor(server.clock.now() / DAY_MS) - 30,
        impressions: 2_000,
        earned_millicents: 1_000_000,
      })
      .execute();
    const requested = await server.api.post('/api/v1/earnings/payouts', {
      token: brand.token,
      json: { amount_cents: 1_000 },
    });
    expect(requested.status).toBe(201);
    const payouts = await server.api.get('/api/v1/audit-log?action=payout.requested', { token: brand.token });
    expect(payouts.body.entries).toEqual([
      expect.objectContaining({
        actor,
        target: requested.body.id,
        details: expect.objectContaining({ amount_cents: 1_000 }),
      }),
    ]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { adRevenueForAgent } from '../../server/domain/ads/revenue.js';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { fetchImage, imageForm, onServer, roomJpeg } from '../fixtures/images.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { useImagingServer } from '../helpers/staging.js';
import { independentlyVerified } from '../helpers/webhooks.js';
import { serveToViewers } from '../fixtures/ads.js';

const DAY = 86_400_000;

describeEachDatabase('Claims over HTTP', (dialect) => {
  const server = useImagingServer(dialect);
  let photo: Buffer;
  beforeAll(async () => {
    photo = await roomJpeg(500, 400);
  });

  async function stagedClaim(count = 1) {
    const issuer = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/stage', {
      token: issuer.key,
      body: imageForm(Array.from({ length: count }, () => ({ data: photo }))),
    });
    expect(response.status).toBe(200);
    return { issuer, code: response.body.claim_code as string, staged: response.body };
  }

  const preview = (token: string, code: string) => server.api.post('/api/v1/claim/preview', { token, json: { code } });
  const redeem = (token: string, code: string) => server.api.post('/api/v1/claim', { token, json: { code } });

  describe('preview', () => {
    it('shows the image count and the expiry, 30 days after issue', async () => {
      const { code, staged } = await stagedClaim(2);
      const agent = await signUp(server.api);
      const response = await preview(agent.token, code);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        valid: true,
        code,
        status: 'unredeemed',
        image_count: 2,
        is_claimed: false,
        expires_at: staged.expires_at,
        days_until_expiry: 30,
      });
      server.clock.advance(10 * DAY);
      expect((await preview(agent.token, code)).body.days_until_expiry).toBe(20);
    });

    it('accepts lower case, a missing hyphen and Crockford look-alikes (O for 0, I or L for 1)', async () => {
      const { code } = await stagedClaim();
      const agent = await signUp(server.api);
      const body = code.slice(3);
      const lookAlike = body.replace(/0/g, 'O').replace(/1/g, 'l');
      for (const typed of [
        code.toLowerCase(),
        `RS${body}`,
        `rs${body.toLowerCase()}`,
        ` ${code} `,
        `RS-${lookAlike}`,
      ]) {
        const response = await preview(agent.token, typed);
        expect({ typed, status: response.status, code: response.body.code }).toEqual({ typed, status: 200, code });
      }
    });

    it('answers 404 for an unknown or malformed code and 401 without an identity token', async () => {
      const agent = await signUp(server.api);
      const unknown = await preview(agent.token, 'RS-00000000');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: 'not found', code: 'not_found' });
      expect((await preview(agent.token, 'hello')).status).toBe(404);
      const { code, issuer } = await stagedClaim();
      expect((await preview(issuer.key, code)).status).toBe(401);
      expect((await server.api.post('/api/v1/claim/preview', { json: { code } })).status).toBe(401);
    });
  });

  describe('redeem', () => {
    it('redeems for free, moves the images to the agent, and then previews as redeemed', async () => {
      const { code, staged, issuer } = await stagedClaim(2);
      const agent = await signUp(server.api);
      const response = await redeem(agent.token, code.toLowerCase());
      expect(response.status).toBe(200);
      const byId = <T extends { id: string }>(images: T[]) => [...images].sort((a, b) => a.id.localeCompare(b.id));
      expect({ ...response.body, images: byId(response.body.images) }).toEqual({
        claim_code: code,
        status: 'redeemed',
        redeemed_at: expect.stringMatching(/Z$/),
        image_count: 2,
        // The stage body's images less what only a stage says (which variation, its seed).
        images: byId(staged.images.map(({ variation: _v, seed: _s, ...image }: Record<string, unknown>) => image)),
      });
      const after = await preview(agent.token, code);
      expect(after.body).toMatchObject({ valid: false, status: 'redeemed', is_claimed: true });
      const credits = await server.api.get('/api/v1/credits', { token: issuer.key });
      expect(credits.body.credits).toBe(8);
      const ledger = await server.services.db
        .selectFrom('credit_ledger')
        .select('reason')
        .where('account_id', '=', agent.userId)
        .execute();
      expect(ledger).toHaveLength(0);
    });

    it('lets exactly one of several simultaneous redeems win; the others get 409 claim_already_redeemed', async () => {
      const { code } = await stagedClaim();
      const agents = await Promise.all(Array.from({ length: 6 }, () => signUp(server.api)));
      const responses = await Promise.all(agents.map((agent) => redeem(agent.token, code)));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const loser of responses.filter((r) => r.status === 409)) {
        expect(loser.body).toMatchObject({ error: 'claim already redeemed', code: 'claim_already_redeemed' });
      }
      const winner = agents[responses.findIndex((r) => r.status === 200)]!;
      const row = await server.services.db
        .selectFrom('claims')
        .selectAll()
        .where('code', '=', code)
        .executeTakeFirstOrThrow();
      expect(row.redeemed_by).toBe(winner.userId);
      const events = await server.services.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('event', '=', 'claim.redeemed')
        .execute();
      expect(events.filter((e) => JSON.parse(e.payload).data.claim_code === code)).toHaveLength(1);
    });

    it('answers 410 claim_expired 30 days after issue, and 404 for an unknown code', async () => {
      const { code } = await stagedClaim();
      const agent = await signUp(server.api);
      server.clock.advance(30 * DAY + 1);
      const response = await redeem(agent.token, code);
      expect(response.status).toBe(410);
      expect(response.body).toMatchObject({ error: 'claim expired', code: 'claim_expired' });
      expect((await preview(agent.token, code)).body).toMatchObject({
        valid: false,
        status: 'expired',
        is_claimed: false,
        days_until_expiry: 0,
      });
      expect((await redeem(agent.token, 'RS-ZZZZZZZZ')).status).toBe(404);
    });

    it('still redeems just before the 30 days are up', async () => {
      const { code } = await stagedClaim();
      const agent = await signUp(server.api);
      server.clock.advance(30 * DAY - 60_000);
      expect((await redeem(agent.token, code)).status).toBe(200);
    });
  });

  describe('claim_code on stage, enhance and place-products', () => {
    it('adds images to an open claim this account issued', async () => {
      const { code, issuer } = await stagedClaim();
      const more = await server.api.post('/api/v1/stage', {
        token: issuer.key,
        json: { image: photo.toString('base64'), claim_code: code.toLowerCase().replace('-', '') },
      });
      expect(more.status).toBe(200);
      expect(more.body.claim_code).toBe(code);
      const enhanced = await server.api.post('/api/v1/enhance', {
        token: issuer.key,
        body: imageForm([{ data: photo }], { claim_code: code }),
      });
      expect(enhanced.status).toBe(200);
      const placed = await server.api.post('/api/v1/place-products', {
        token: issuer.key,
        json: { image_id: more.body.images[0].id, claim_code: code },
      });
      expect(placed.status).toBe(200);
      const agent = await signUp(server.api);
      expect((await preview(agent.token, code)).body.image_count).toBe(4);
      const redeemed = await redeem(agent.token, code);
      expect(redeemed.body.images).toHaveLength(4);
    });

    it("refuses another account's claim (404), a redeemed one (409) and an expired one (410), charging nothing", async () => {
      const first = await stagedClaim();
      const stranger = await signUpWithKey(server.api);
      const foreign = await server.api.post('/api/v1/stage', {
        token: stranger.key,
        json: { image: photo.toString('base64'), claim_code: first.code },
      });
      expect(foreign.status).toBe(404);
      const agent = await signUp(server.api);
      await redeem(agent.token, first.code);
      const redeemed = await server.api.post('/api/v1/enhance', {
        token: first.issuer.key,
        json: { image: photo.toString('base64'), claim_code: first.code },
      });
      expect(redeemed.status).toBe(409);
      expect(redeemed.body.code).toBe('claim_already_redeemed');
      const second = await stagedClaim();
      server.clock.advance(31 * DAY);
      const expired = await server.api.post('/api/v1/stage', {
        token: second.issuer.key,
        body: imageForm([{ data: photo }], { claim_code: second.code }),
      });
      expect(expired.status).toBe(410);
      const placed = await server.api.post('/api/v1/place-products', {
        token: second.issuer.key,
        json: { image: photo.toString('base64'), claim_code: second.code },
      });
      expect(placed.status).toBe(410);
      for (const key of [stranger.key, first.issuer.key, second.issuer.key]) {
        const credits = await server.api.get('/api/v1/credits', { token: key });
        expect(credits.body.credits).toBe(key === stranger.key ? 10 : 9);
      }
    });
  });

  describe('listings', () => {
    it('pages the dashboard images: newest claim first, limit and starting_after, has_more, 404 for a foreign cursor', async () => {
      const agent = await signUp(server.api);
      for (const count of [3, 2, 2]) {
        const { code } = await stagedClaim(count);
        server.clock.advance(1000);
        expect((await redeem(agent.token, code)).status).toBe(200);
      }
      const images = (query: string) => server.api.get(`/api/v1/images${query}`, { token: agent.token });
      const all = await images('?limit=100');
      expect(all.body).toMatchObject({ has_more: false });
      expect(all.body.images).toHaveLength(7);
      const paged: string[] = [];
      let cursor = '';
      for (;;) {
        const page = await images(`?limit=2${cursor}`);
        expect(page.status).toBe(200);
        paged.push(...page.body.images.map((i: { id: string }) => i.id));
        if (!page.body.has_more) break;
        cursor = `&starting_after=${page.body.images.at(-1).id}`;
      }
      expect(paged).toEqual(all.body.images.map((i: { id: string }) => i.id));
      expect((await images('')).body.images).toHaveLength(7);
      const stranger = await stagedClaim(1);
      expect((await images(`?starting_after=${stranger.staged.images[0].id}`)).status).toBe(404);
      expect((await images('?limit=0')).status).toBe(400);
      expect((await images('?limit=101')).status).toBe(400);
    });

    it('lists redeemed claims for the agent and issued claims (with who redeemed) for the API user', async () => {
      const a = await stagedClaim();
      const b = await server.api.post('/api/v1/stage', {
        token: a.issuer.key,
        json: { images: [photo.toString('base64'), photo.toString('base64')] },
      });
      const agent = await signUp(server.api);
      await redeem(agent.token, b.body.claim_code);
      const redeemed = await server.api.get('/api/v1/claims', { token: agent.token });
      expect(redeemed.status).toBe(200);
      expect(redeemed.body.claims).toEqual([
        {
          claim_code: b.body.claim_code,
          status: 'redeemed',
          image_count: 2,
          created_at: expect.any(String),
          expires_at: b.body.expires_at,
          redeemed_at: expect.any(String),
        },
      ]);
      const issued = await server.api.get('/api/v1/claims?role=issued', { token: a.issuer.token });
      expect(issued.body.claims).toHaveLength(2);
      const byCode = new Map(issued.body.claims.map((c: { claim_code: string }) => [c.claim_code, c]));
      expect(byCode.get(b.body.claim_code)).toMatchObject({ status: 'redeemed', claimed_by_email: agent.email });
      expect(byCode.get(a.code)).toMatchObject({ status: 'unredeemed', redeemed_at: null });
      expect(byCode.get(a.code)).not.toHaveProperty('claimed_by_email');
      expect((await server.api.get('/api/v1/claims?role=owner', { token: agent.token })).status).toBe(400);
    });
  });

  it('runs the typical flow end to end: stage → preview → redeem → dashboard images, with both events delivered signed', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const issuer = await signUpWithKey(server.api);
      const hook = await server.api.put(`/api/v1/keys/${issuer.keyId}/webhook`, {
        token: issuer.token,
        json: { url: receiver.url, enabled: true },
      });
      expect(hook.status).toBe(200);
      const secret = hook.body.secret as string;

      // 1. The API user stages each room photo and keeps the URLs and the claim code.
      const first = await server.api.post('/api/v1/stage', {
        token: issuer.key,
        body: imageForm([{ data: photo }], { style: 'luxury', room_type: 'bedroom' }),
      });
      const second = await server.api.post('/api/v1/stage', {
        token: issuer.key,
        json: {
          image: photo.toString('base64'),
          style: 'luxury',
          room_type: 'bedroom',
          claim_code: first.body.claim_code,
        },
      });
      expect([first.status, second.status]).toEqual([200, 200]);
      const code = first.body.claim_code as string;
      const placed = await server.api.post('/api/v1/place-products', {
        token: issuer.key,
        json: { image_id: first.body.images[0].id, claim_code: code },
      });
      expect(placed.status).toBe(200);

      // 2–3. The agent previews the claim: three images, 30 days.
      const agent = await signUp(server.api);
      expect((await preview(agent.token, code)).body).toMatchObject({
        valid: true,
        image_count: 3,
        days_until_expiry: 30,
      });

      // 4. The agent redeems; the images are in the dashboard.
      const redeemed = await redeem(agent.token, code);
      expect(redeemed.status).toBe(200);
      const dashboard = await server.api.get('/api/v1/images', { token: agent.token });
      expect(dashboard.status).toBe(200);
      expect(dashboard.body.images.map((i: { id: string }) => i.id).sort()).toEqual(
        redeemed.body.images.map((i: { id: string }) => i.id).sort(),
      );
      expect(dashboard.body.images.map((i: { kind: string }) => i.kind).sort()).toEqual(['placed', 'staged', 'staged']);
      for (const image of dashboard.body.images) {
        expect(image).toEqual({
          id: expect.any(String),
          image_url: expect.any(String),
          kind: expect.any(String),
          width: 500,
          height: 400,
          claim_code: code,
          created_at: expect.any(String),
          original_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:1\/o\/\w+$/),
          disclosure_caption: expect.stringContaining('Virtually staged'),
          // Staged images passed the fidelity check; a placed one only adds products and is not checked.
          fidelity: image.kind === 'placed' ? null : expect.any(Number),
          changes: image.kind === 'placed' ? null : [],
        });
        expect((await fetchImage(server, image.image_url)).response.status).toBe(200);
      }
      expect((await server.api.get('/api/v1/images', { token: issuer.token })).body.images).toEqual([]);

      // Serving the placed image counts impressions, once a day per viewer (a client address, whatever its
      // User-Agent); half the revenue is the agent's. The test's own fetches above say they are Node, a bot to the
      // user-agent list, and counted nothing. Five viewers come, one of them twice.
      const placedUrl = dashboard.body.images.find((i: { kind: string }) => i.kind === 'placed').image_url;
      const viewers = ['viewer-0', 'viewer-1', 'viewer-2', 'viewer-3', 'viewer-4'];
      await serveToViewers(server.url, onServer(placedUrl), viewers);
      await serveToViewers(server.url, onServer(placedUrl), ['viewer-0']);
      const revenue = await adRevenueForAgent(server.services.db, agent.userId);
      const placements = placed.body.placements.length;
      expect(revenue.impressions).toBe(5 * placements);
      const rates = await server.services.db
        .selectFrom('placements')
        .select('revenue_per_mille_cents')
        .where('image_id', '=', dashboard.body.images.find((i: { kind: string }) => i.kind === 'placed').id)
        .execute();
      const milliCents = 5 * rates.reduce((sum, r) => sum + r.revenue_per_mille_cents, 0);
      expect(revenue).toEqual({
        impressions: 5 * placements,
        gross_cents: Math.floor(milliCents / 1000),
        earned_cents: Math.floor(milliCents / 2000),
      });

      // 5. The API user hears about both stagings and the redemption, signed with the webhook secret.
      await receiver.waitFor((requests) => requests.filter((r) => r.answeredWith === 200).length >= 3, 10_000);
      const deliveries = receiver.accepted().map((request) => ({ request, body: receiver.bodyOf(request) }));
      for (const { request } of deliveries) expect(independentlyVerified(secret, request)).toBe(true);
      const staging = deliveries.filter((d) => d.body.event === 'staging.complete').map((d) => d.body.data);
      expect(staging).toHaveLength(2);
      expect(staging.map((d) => d.credits_remaining).sort()).toEqual([8, 9]);
      expect(staging[0]).toMatchObject({ claim_code: code, style: 'luxury', room_type: 'bedroom', credits_used: 1 });
      const claimed = deliveries.find((d) => d.body.event === 'claim.redeemed')!;
      expect(claimed.body.data).toEqual({
        claim_code: code,
        claimed_by_email: agent.email,
        image_count: 3,
        redeemed_at: redeemed.body.redeemed_at,
      });
    } finally {
      await receiver.close();
    }
  });
});

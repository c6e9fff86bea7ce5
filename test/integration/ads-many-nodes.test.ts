import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';
import { confirmEmail } from '../fixtures/mail.js';
import { moneyProblems, placedListing, serveToViewers, sofaPng } from '../fixtures/ads.js';
import { ApiClient, signUp } from '../fixtures/api-client.js';
import { createTestDatabase, mysqlSkipReason, type TestDatabase } from '../helpers/databases.js';
import { onServer } from '../fixtures/images.js';
import { type ServerProcess, spawnServerProcess } from '../helpers/processes.js';
import { GENEROUS_LIMITS } from '../helpers/staging.js';

/**
 * Billing under contention between processes: two compiled app nodes on one MySQL database serve one placed image
 * to 1 000 distinct viewers at once. MySQL only: SQLite is an embedded single-process database.
 */
const VIEWERS = 1000;
const BATCH = 100;

const skipReason = mysqlSkipReason();
if (skipReason) console.log(`[ads-many-nodes] skipped: the two-node billing test needs MySQL and ${skipReason}`);
const describeOnMysql = skipReason ? describe.skip : describe;

describeOnMysql(
  `Sponsored impressions billed by two app nodes on one MySQL (MySQL only)${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    const nodes: ServerProcess[] = [];

    beforeAll(async () => {
      execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'ignore' });
      database = await createTestDatabase('mysql');
      // Both nodes read and write the same image files, as they would one bucket.
      const env = {
        ...GENEROUS_LIMITS,
        DATABASE_URL: database.url,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-ads-nodes-')),
        PUBLIC_BASE_URL: 'http://roomstage-lb.test',
        BACKGROUND_WORK: 'off',
        RETENTION_INTERVAL: '1000d',
      };
      const started = await Promise.allSettled(
        [0, 1].map(() => spawnServerProcess(env, ['dist/server/main.js']).then((node) => nodes.push(node))),
      );
      for (const result of started) if (result.status === 'rejected') throw result.reason;
      handle = openDatabase(database.url);
    }, 300_000);

    afterAll(async () => {
      await Promise.allSettled(nodes.map((node) => node.kill()));
      await handle?.close();
      await database?.drop();
    });

    it('bills exactly the 100 impressions a budget covers when 1 000 viewers load a placed image through both nodes at once', {
      timeout: 240_000,
    }, async () => {
      const [a, b] = nodes as [ServerProcess, ServerProcess];
      const api = new ApiClient(a.url);
      const brand = await signUp(api);
      await confirmEmail({ services: { db: handle.db }, api }, brand.email);
      const product = await api.post('/api/v1/ads/products', {
        token: brand.token,
        json: {
          image: (await sofaPng()).toString('base64'),
          name: 'Cloud Sofa',
          brand: 'Brandco',
          category: 'sofa',
          room_types: ['living_room'],
        },
      });
      expect(product.status).toBe(201);
      const checkout = await api.post('/api/v1/ads/funds/checkout', {
        token: brand.token,
        json: { amount_cents: 10_000 },
      });
      expect((await fetch(new URL(onServer(checkout.body.checkout_url), a.url))).status).toBe(200);
      // 10 000 milli-cents an impression and a $10 budget: exactly 100 impressions can be paid for.
      const campaign = await api.post('/api/v1/ads/campaigns', {
        token: brand.token,
        json: { name: 'Launch', product_ids: [product.body.id], cpm_cents: 10_000, total_budget_cents: 1_000 },
      });
      expect(campaign.status).toBe(201);
      const agent = await signUp(api);
      const listing = await placedListing(api, { agentToken: agent.token });
      expect(listing.placements.filter((placement) => placement.campaign_id === campaign.body.id)).toHaveLength(1);

      // Every batch goes half to each node, all at once.
      const viewers = Array.from({ length: VIEWERS }, (_, i) => `viewer-${i}`);
      const statuses: number[] = [];
      for (let at = 0; at < VIEWERS; at += BATCH) {
        const batch = viewers.slice(at, at + BATCH);
        const half = batch.length / 2;
        const served = await Promise.all([
          serveToViewers(a.url, listing.imagePath, batch.slice(0, half)),
          serveToViewers(b.url, listing.imagePath, batch.slice(half)),
        ]);
        statuses.push(...served.flat());
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);

      const after = await api.get(`/api/v1/ads/campaigns/${campaign.body.id}`, { token: brand.token });
      expect(after.body).toMatchObject({
        status: 'exhausted',
        impressions: 100,
        unbilled_impressions: VIEWERS - 100,
        spent_cents: 1_000,
      });
      expect((await api.get('/api/v1/ads/funds', { token: brand.token })).body.balance_cents).toBe(9_000);
      const earnings = await new ApiClient(b.url).get('/api/v1/earnings', { token: agent.token });
      // The agent's half waits out the earnings hold (7 days) before it can be paid.
      expect(earnings.body).toMatchObject({ available_cents: 0, pending_cents: 500 });
      const row = await handle.db
        .selectFrom('campaign_daily')
        .select(['impressions', 'spend_millicents', 'agent_millicents', 'service_millicents'])
        .where('campaign_id', '=', campaign.body.id)
        .executeTakeFirstOrThrow();
      expect({
        impressions: Number(row.impressions),
        spend: Number(row.spend_millicents),
        agent: Number(row.agent_millicents),
        service: Number(row.service_millicents),
      }).toEqual({ impressions: 100, spend: 1_000_000, agent: 500_000, service: 500_000 });
      expect(await moneyProblems(handle.db)).toEqual([]);
    });
  },
);

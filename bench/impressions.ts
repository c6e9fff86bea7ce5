/**
 * `npm run bench:impressions`: one Roomstage node on MySQL serves a placed image (one sponsored product, billed on
 * every counted impression) and, for comparison, an image without placements, each to a new viewer per request. A
 * viewer is a client address: the node runs behind a (modelled) proxy, TRUST_PROXY=loopback, and each request names
 * a new client in X-Forwarded-For, with one browser User-Agent for all. Prints counted and billed impressions per
 * second, the p99 of both serves and their ratio, then a farm (one address, a new User-Agent per request: billed
 * once), and checks the money rules exactly at the end.
 * Env: BENCH_SECONDS (15), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (3), BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { type Db, openDatabase } from '../db/client.js';
import { confirmEmail } from '../test/fixtures/mail.js';
import { moneyProblems, placedListing, sofaPng } from '../test/fixtures/ads.js';
import { ApiClient, signUp } from '../test/fixtures/api-client.js';
import { type ChildServer, freshMysqlDatabase, type LoadOptions, loadOptionsFromEnv, withChildServer } from './lib.js';

const MYSQL_DATABASE = 'roomstage_bench_impressions';
const TARGET_P99_RATIO = 2;
const UNLIMITED = String(1_000_000_000);

interface Serve {
  requestsPerSecond: number;
  p99Ms: number;
  total: number;
  failures: number;
}

let viewerSerial = 0;

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The n-th client address of 10.0.0.0/8: 16 million viewers before one comes back. */
function clientAddress(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * GETs `imagePath` for `seconds`: each request as a viewer never seen before (a new address), or with `farm` all from
 * one address that changes its User-Agent every time.
 */
async function serveDistinctViewers(
  server: ChildServer,
  imagePath: string,
  connections: number,
  seconds: number,
  farm = false,
) {
  const result = await autocannon({
    url: server.url + imagePath,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const serial = viewerSerial++;
          return {
            ...request,
            headers: {
              ...request.headers,
              'x-forwarded-for': farm ? '192.0.2.66' : clientAddress(serial),
              'user-agent': farm ? BROWSER.replace('131.0.0.0', `131.0.${serial}.0`) : BROWSER,
            },
          };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  } satisfies Serve;
}

/** An advertiser with $10 000 of funds and a campaign that can pay for every impression the bench makes. */
async function advertiser(api: ApiClient, serverUrl: string, db: Db) {
  const brand = await signUp(api, `bench-brand-${Date.now()}@example.com`);
  // Buying ad funds needs a confirmed address: the bench follows the e-mailed link, as a person would.
  await confirmEmail({ services: { db }, api }, brand.email);
  const product = await api.post('/api/v1/ads/products', {
    token: brand.token,
    json: {
      image: (await sofaPng()).toString('base64'),
      name: 'Bench Sofa',
      brand: 'Bench',
      category: 'sofa',
      room_types: ['living_room'],
    },
  });
  if (product.status !== 201) throw new Error(`product: ${product.status} ${product.text}`);
  const checkout = await api.post('/api/v1/ads/funds/checkout', {
    token: brand.token,
    json: { amount_cents: 1_000_000 },
  });
  if (checkout.status !== 200) throw new Error(`checkout: ${checkout.status} ${checkout.text}`);
  const paid = await fetch(new URL(new URL(checkout.body.checkout_url).pathname, serverUrl));
  if (!paid.ok) throw new Error(`simulated checkout: ${paid.status}`);
  const campaign = await api.post('/api/v1/ads/campaigns', {
    token: brand.token,
    json: { name: 'Bench', product_ids: [product.body.id], cpm_cents: 333, total_budget_cents: 1_000_000 },
  });
  if (campaign.status !== 201) throw new Error(`campaign: ${campaign.status} ${campaign.text}`);
  return campaign.body.id as string;
}

async function bench(databaseUrl: string, dataDir: string, options: LoadOptions) {
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BACKGROUND_WORK: 'off',
    RATE_LIMIT_PER_MINUTE: UNLIMITED,
    RATE_LIMIT_CONCURRENT: '1000',
    IMAGE_WORK_PER_PROCESS: '64',
    SIGN_IN_LIMIT_PER_IP: UNLIMITED,
    // The bench client is the proxy: the client address comes from X-Forwarded-For.
    TRUST_PROXY: 'loopback',
  };
  return withChildServer('Roomstage (MySQL)', 'server/main.ts', env, '/api/health', async (server) => {
    const api = new ApiClient(server.url);
    const handle = openDatabase(databaseUrl);
    try {
      const campaignId = await advertiser(api, server.url, handle.db);
      const listing = await placedListing(api);
      if (!listing.placements.some((placement) => placement.campaign_id === campaignId))
        throw new Error('the bench campaign was not placed');
      // The room as staged, before the products were placed: the serve to compare with.
      const unplacedPath = listing.stagedPath;
      const db = handle.db;
      const totals = async () => {
        const row = await db
          .selectFrom('campaign_daily')
          .select([
            sql<number>`coalesce(sum(impressions), 0)`.as('billed'),
            sql<number>`coalesce(sum(unbilled_impressions), 0)`.as('unbilled'),
          ])
          .executeTakeFirstOrThrow();
        return { billed: Number(row.billed), counted: Number(row.billed) + Number(row.unbilled) };
      };

      await serveDistinctViewers(server, listing.imagePath, options.connections, options.warmupSeconds);
      await serveDistinctViewers(server, unplacedPath, options.connections, options.warmupSeconds);
      const before = await totals();
      const placed = await serveDistinctViewers(server, listing.imagePath, options.connections, options.seconds);
      const after = await totals();
      const unplacedServe = await serveDistinctViewers(server, unplacedPath, options.connections, options.seconds);
      const beforeFarm = await totals();
      const farm = await serveDistinctViewers(server, listing.imagePath, options.connections, 2, true);
      const afterFarm = await totals();
      return {
        placed,
        unplacedServe,
        farm: { requests: farm.total, billed: afterFarm.billed - beforeFarm.billed },
        countedTotal: after.counted - before.counted,
        counted: (after.counted - before.counted) / options.seconds,
        billed: (after.billed - before.billed) / options.seconds,
        problems: await moneyProblems(db),
      };
    } finally {
      await handle.close();
    }
  });
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function main() {
  const options = loadOptionsFromEnv();
  const mysqlBase = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-impressions-'));
  try {
    const databaseUrl = await freshMysqlDatabase(mysqlBase, MYSQL_DATABASE);
    console.log('Roomstage on MySQL: serving a placed image and an image without placements to distinct viewers…');
    const { placed, unplacedServe, counted, billed, countedTotal, farm, problems } = await bench(
      databaseUrl,
      dataDir,
      options,
    );
    const ratio = placed.p99Ms / Math.max(1, unplacedServe.p99Ms);
    console.log(
      `\nGET /images/…, ${options.connections} connections, ${options.seconds} s each (after ${options.warmupSeconds} s warm-up), a new viewer per request\n`,
    );
    console.log(
      `placed image:        ${placed.requestsPerSecond.toFixed(0)} req/s  p99 ${placed.p99Ms} ms  (${placed.total} requests, ${placed.failures} failed)`,
    );
    console.log(
      `without placements:  ${unplacedServe.requestsPerSecond.toFixed(0)} req/s  p99 ${unplacedServe.p99Ms} ms  (${unplacedServe.total} requests, ${unplacedServe.failures} failed)`,
    );
    console.log(`impressions counted: ${counted.toFixed(0)}/s   billed: ${billed.toFixed(0)}/s`);
    console.log('');
    console.log(
      `p99 ratio (placed / without) = ${ratio.toFixed(2)}  target ≤ ${TARGET_P99_RATIO}  ${verdict(ratio <= TARGET_P99_RATIO)}`,
    );
    console.log(`billed = counted: ${verdict(billed === counted)}`);
    console.log(
      `counted = placed requests (a new address each): ${countedTotal} of ${placed.total}  ${verdict(countedTotal === placed.total)}`,
    );
    console.log(
      `farm (one address, ${farm.requests} User-Agents): billed ${farm.billed}  target 1  ${verdict(farm.billed === 1)}`,
    );
    console.log(
      `failed requests = ${placed.failures + unplacedServe.failures}  target 0  ${verdict(placed.failures + unplacedServe.failures === 0)}`,
    );
    console.log(
      `money identity (Σ spend = Σ earnings + service share; funds = Σ ledger ≥ 0): ${problems.length === 0 ? 'PASS' : `FAIL\n  ${problems.join('\n  ')}`}`,
    );
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

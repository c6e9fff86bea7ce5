import { type Kysely, sql } from 'kysely';
import sharp from 'sharp';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Database } from '../../db/schema.js';
import { type ApiClient, signUp, signUpWithKey } from './api-client.js';
import { onServer, roomJpeg } from './images.js';

/** A sofa cut-out: an opaque shape on transparent pixels, as advertisers upload them. */
export async function sofaPng(width = 600, height = 360): Promise<Buffer> {
  const shape = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="20" y="60" width="${width - 40}" height="${height - 80}" rx="30" fill="#7a5c3e"/></svg>`,
  );
  return sharp({ create: { width, height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
    .composite([{ input: shape }])
    .png()
    .toBuffer();
}

/**
 * A staging company stages a room into a claim and places products in it; an agent (a new one, or `agentToken`)
 * redeems the claim unless `redeem` is false. Returns the placed image's path on the server.
 */
export async function placedListing(api: ApiClient, options: { redeem?: boolean; agentToken?: string } = {}) {
  const company = await signUpWithKey(api);
  const photo = await roomJpeg(1000, 700);
  const staged = await api.post('/api/v1/stage', { token: company.key, json: { image: photo.toString('base64') } });
  if (staged.status !== 200) throw new Error(`stage: ${staged.status} ${staged.text}`);
  const placed = await api.post('/api/v1/place-products', {
    token: company.key,
    json: { image_id: staged.body.images[0].id, claim_code: staged.body.claim_code, max_products: 3 },
  });
  if (placed.status !== 200) throw new Error(`place-products: ${placed.status} ${placed.text}`);
  const agentToken = options.agentToken ?? (await signUp(api)).token;
  if (options.redeem !== false) {
    const redeemed = await api.post('/api/v1/claim', { token: agentToken, json: { code: staged.body.claim_code } });
    if (redeemed.status !== 200) throw new Error(`claim: ${redeemed.status} ${redeemed.text}`);
  }
  return {
    /** The staging company (its owner's session and key) and the agent's session. */
    company,
    agentToken,
    placements: placed.body.placements as Array<{ campaign_id: string | null; sponsored: boolean }>,
    imagePath: onServer(placed.body.image_url),
    /** The staged image the products were placed in: the same room without placements. */
    stagedPath: onServer(staged.body.images[0].image_url),
  };
}

/** A browser's User-Agent, `version` varied: every one of them reads as a person's browser (not a bot) to isbot. */
export function browserAgent(version: number): string {
  return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + (version % 900)}.0.${version}.0 Safari/537.36`;
}

/** The i-th address of the loopback range 127.0.0.0/8 other than 127.0.0.1: a distinct client on this machine. */
export function loopbackAddress(i: number): string {
  return `127.${1 + Math.floor(i / 62_500)}.${(Math.floor(i / 250) % 250) + 1}.${(i % 250) + 1}`;
}

// One connection per request (no keep-alive): nothing stays open after a test, whatever address it came from.
const agents = new Map<string, Agent>();
function agentAt(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ localAddress: address, pipelining: 0 });
    agents.set(address, agent);
  }
  return agent;
}

/** One request from a client at `address` (its socket bound there, as a browser on another machine would be). */
export async function fetchFrom(
  address: string,
  url: string | URL,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Buffer }> {
  const response = await undiciFetch(url, { ...init, dispatcher: agentAt(address) });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

const viewerAddresses = new Map<string, string>();
/** Each distinct viewer name gets its own loopback address, the same one every time it is used. */
export function viewerAddress(viewer: string): string {
  let address = viewerAddresses.get(viewer);
  if (!address) {
    address = loopbackAddress(viewerAddresses.size);
    viewerAddresses.set(viewer, address);
  }
  return address;
}

/** Loads `path` once per viewer: each its own client address (a viewer is an address) and a browser's User-Agent. */
export async function serveToViewers(baseUrl: string, path: string, viewers: string[]): Promise<number[]> {
  return Promise.all(
    viewers.map(async (viewer, i) => {
      const response = await fetchFrom(viewerAddress(viewer), new URL(path, baseUrl), {
        headers: { 'user-agent': browserAgent(i) },
      });
      return response.status;
    }),
  );
}

/**
 * The money rules checked over the whole database: spend = agents' earnings + the service's share to the milli-cent,
 * campaigns' spend = daily spend = the funds ledger's spend, and every account's funds = Σ its ledger ≥ 0.
 */
export async function moneyProblems(db: Kysely<Database>): Promise<string[]> {
  const sum = (column: string) => sql<number>`coalesce(sum(${sql.ref(column)}), 0)`;
  const daily = await db
    .selectFrom('campaign_daily')
    .select([
      sum('spend_millicents').as('spend'),
      sum('agent_millicents').as('agent'),
      sum('service_millicents').as('service'),
    ])
    .executeTakeFirstOrThrow();
  const earned = await db
    .selectFrom('earnings_daily')
    .select(sum('earned_millicents').as('earned'))
    .executeTakeFirstOrThrow();
  const spent = await db.selectFrom('campaigns').select(sum('spent_millicents').as('spent')).executeTakeFirstOrThrow();
  // Spend less what invalid-traffic declarations refunded (adjustments that name the declaration, ivt_…).
  const ledger = await db
    .selectFrom('ad_funds_ledger')
    .where((eb) => eb.or([eb('reason', '=', 'spend'), eb('reference', 'like', 'ivt_%')]))
    .select(sum('delta_millicents').as('spend'))
    .executeTakeFirstOrThrow();
  const problems: string[] = [];
  const [spend, agent, service] = [Number(daily.spend), Number(daily.agent), Number(daily.service)];
  if (spend !== agent + service) problems.push(`spend ${spend} ≠ agents ${agent} + service ${service}`);
  if (Number(earned.earned) !== agent) problems.push(`earnings ${earned.earned} ≠ agents' share ${agent}`);
  if (Number(spent.spent) !== spend) problems.push(`campaigns spent ${spent.spent} ≠ daily spend ${spend}`);
  if (-Number(ledger.spend) !== spend) problems.push(`ledger spend ${-Number(ledger.spend)} ≠ daily spend ${spend}`);
  const accounts = await db
    .selectFrom('accounts')
    .leftJoin('ad_funds_ledger', 'ad_funds_ledger.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.ad_funds_millicents', sum('delta_millicents').as('sum')])
    .groupBy(['accounts.id', 'accounts.ad_funds_millicents'])
    .execute();
  for (const row of accounts) {
    const funds = Number(row.ad_funds_millicents);
    if (funds !== Number(row.sum)) problems.push(`account ${row.id}: funds ${funds} ≠ ledger ${row.sum}`);
    if (funds < 0) problems.push(`account ${row.id}: funds ${funds} below zero`);
  }
  return problems;
}

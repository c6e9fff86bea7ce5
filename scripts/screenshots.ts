/**
 * `npm run screenshots`: every dashboard page at 1280 px and 390 px, into docs/screenshots/. Starts its own server
 * on a throw-away SQLite database, fills it through the API (a staging company with a key, a staged photo, a
 * webhook with deliveries, a purchase with its simulated card and an auto top-up; an agent who redeemed the claim),
 * then signs in with Chromium and captures each page.
 * Pages that are not built on this branch (404) are skipped and named in the output.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { loadConfig } from '../server/env.js';
import { startServer } from '../server/main.js';
import { launchChromium } from '../test/helpers/browser.js';

const OUT_DIR = join(process.cwd(), 'docs', 'screenshots');
const WIDTHS = [1280, 390] as const;
const PASSWORD = 'a long screenshot password';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function call(base: string, method: string, path: string, token: string | null, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Auto top-up runs after the charge that crossed the threshold; waits until its ledger row is there. */
async function waitForTopUp(base: string, token: string) {
  for (let tries = 0; tries < 100; tries++) {
    const { transactions } = await call(base, 'GET', '/api/v1/billing/transactions', token);
    if (transactions.some((transaction: { reason: string }) => transaction.reason === 'auto_topup')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('auto top-up did not happen within 10 s');
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'roomstage-screenshots-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // A receiver for the webhook, so the delivery log has real rows.
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/roomstage`;

  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    DATABASE_URL: `sqlite:${join(dataDir, 'roomstage.db')}`,
    DATA_DIR: dataDir,
    STORAGE_URL: `file:${join(dataDir, 'images')}`,
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'silent',
    RETENTION_INTERVAL: '1000d',
  });
  const server = await startServer(config);
  const browser = await launchChromium();
  try {
    // The staging company: a key, a webhook, two staged photos (one claim redeemed by the agent below).
    const studio = await call(base, 'POST', '/api/v1/auth/signup', null, {
      email: 'studio@example.com',
      password: PASSWORD,
    });
    const key = await call(base, 'POST', '/api/v1/keys', studio.token, { name: 'Production server' });
    await call(base, 'POST', '/api/v1/keys', studio.token, { name: 'Staging environment', mode: 'test' });
    await call(base, 'PUT', `/api/v1/keys/${key.id}/webhook`, studio.token, { url: receiverUrl, enabled: true });
    // Billing that is not empty: 20 credits bought through the simulated checkout (saving its card), auto top-up on,
    // and the first staged photo leaving the balance below the threshold, so one top-up shows in the transactions.
    const checkout = await call(base, 'POST', '/api/v1/billing/checkout', studio.token, { credits: 20 });
    const paid = await fetch(checkout.checkout_url);
    if (!paid.ok) throw new Error(`simulated checkout: ${paid.status}`);
    await call(base, 'PUT', '/api/v1/settings/auto-topup', studio.token, {
      enabled: true,
      amount: 100,
      threshold: 30,
      monthly_limit: 500,
    });
    // The bundled real photo of an empty room (docs/samples/SOURCES.md), as the README's first request sends it.
    const photo = readFileSync(join(process.cwd(), 'docs', 'samples', 'empty-room.jpg')).toString('base64');
    const staged = await call(base, 'POST', '/api/v1/stage', key.key, {
      image: photo,
      style: 'scandinavian',
      room_type: 'living_room',
    });
    await waitForTopUp(base, studio.token);
    await call(base, 'POST', '/api/v1/stage', key.key, { image: photo, style: 'industrial', room_type: 'bedroom' });
    await call(base, 'POST', `/api/v1/keys/${key.id}/webhook/test`, studio.token);
    const agent = await call(base, 'POST', '/api/v1/auth/signup', null, {
      email: 'agent@example.com',
      password: PASSWORD,
    });
    await call(base, 'POST', '/api/v1/claim', agent.token, { code: staged.claim_code });

    const pages: {
      name: string;
      path: string;
      as: 'visitor' | 'studio' | 'agent';
      prepare?: (page: Page) => Promise<void>;
    }[] = [
      { name: 'home', path: '/', as: 'visitor' },
      { name: 'sign-in', path: '/login', as: 'visitor' },
      { name: 'sign-up', path: '/signup', as: 'visitor' },
      { name: 'overview', path: '/overview', as: 'studio' },
      { name: 'keys', path: '/keys', as: 'studio' },
      {
        name: 'keys-new-key',
        path: '/keys',
        as: 'studio',
        prepare: async (page) => {
          await page.getByLabel('Name').fill('Website');
          await page.getByRole('button', { name: 'Create key' }).click();
          await page.getByLabel('Secret key').waitFor();
        },
      },
      { name: 'webhooks', path: '/webhooks', as: 'studio' },
      { name: 'webhook', path: `/keys/${key.id}/webhook`, as: 'studio' },
      { name: 'billing', path: '/billing', as: 'studio' },
      { name: 'usage', path: '/usage', as: 'studio' },
      { name: 'transactions', path: '/billing/transactions', as: 'studio' },
      { name: 'playground', path: '/playground', as: 'studio' },
      {
        name: 'playground-result',
        path: '/playground',
        as: 'studio',
        prepare: async (page) => {
          await page.getByRole('button', { name: 'Stage photo' }).click();
          await page.getByRole('heading', { name: 'Before and after' }).waitFor({ timeout: 60_000 });
        },
      },
      { name: 'claims', path: '/claims', as: 'agent' },
      { name: 'gallery', path: '/gallery', as: 'agent' },
      { name: 'not-found', path: '/no-such-page', as: 'agent' },
    ];

    mkdirSync(OUT_DIR, { recursive: true });
    const sessions = { studio: 'studio@example.com', agent: 'agent@example.com' } as const;
    const skipped: string[] = [];
    for (const width of WIDTHS) {
      for (const role of ['visitor', 'studio', 'agent'] as const) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        if (role !== 'visitor') {
          await page.goto(`${base}/login`);
          await page.getByLabel('E-mail').fill(sessions[role]);
          await page.getByLabel('Password').fill(PASSWORD);
          await page.getByRole('button', { name: /sign in/i }).click();
          await page.waitForURL('**/overview');
        }
        for (const entry of pages.filter((p) => p.as === role)) {
          const response = await page.goto(`${base}${entry.path}`);
          if (response?.status() === 404 && entry.name !== 'not-found') {
            if (width === WIDTHS[0]) skipped.push(entry.path);
            continue;
          }
          await entry.prepare?.(page);
          await page.evaluate(() => document.fonts.ready);
          const file = join(OUT_DIR, `${entry.name}-${width}.png`);
          await page.screenshot({ path: file, fullPage: true });
          console.log(`docs/screenshots/${entry.name}-${width}.png`);
        }
        await context.close();
      }
    }
    if (skipped.length > 0) console.log(`skipped (not built here): ${skipped.join(', ')}`);
  } finally {
    await browser.close();
    await server.close();
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * `npm run bench:lighthouse`: Lighthouse's performance, accessibility and SEO scores (0–100) and the bytes sent for
 * the public pages, the API reference (its index and the Images page, the largest most readers open) and the main
 * pages of a signed-in account, in Debian's Chromium (headless, off the network) against a production server on
 * SQLite. Lighthouse's default mobile profile (throttled 4G, slow CPU).
 * Exits 1 when a performance or SEO score is below the target (95), naming the audits that lost points.
 * Env: CHROMIUM_PATH (/usr/bin/chromium), LIGHTHOUSE_PAGES (comma-separated paths, to audit only those).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { SESSION_COOKIE_NAME } from '../server/auth/lucia.js';
import { postJson, withChildServer } from './lib.js';

const TARGET = 95;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VISITOR_PAGES = ['/', '/login', '/signup', '/docs/', '/docs/images'];
const ACCOUNT_PAGES = ['/overview', '/keys', '/billing', '/usage', '/playground'];

interface Scores {
  page: string;
  performance: number;
  accessibility: number;
  seo: number;
  kib: number;
  /** Lighthouse's measure of this machine's CPU speed during the run: under ~1000 a loaded or slow machine lowers performance scores. */
  cpu: number;
  /** Audits that lost points in a category below the target, so a low score says what to fix. */
  failing: string[];
}

async function audit(port: number, url: string, cookie: string | null): Promise<Scores> {
  const result = await lighthouse(url, {
    port,
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'seo'],
    extraHeaders: cookie ? { Cookie: cookie } : undefined,
  });
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { categories, audits, runtimeError } = result.lhr;
  if (runtimeError) throw new Error(`Lighthouse could not audit ${url}: ${runtimeError.message}`);
  const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
  const failing = Object.values(categories)
    .filter((category) => Math.round((category.score ?? 0) * 100) < TARGET)
    .flatMap((category) =>
      category.auditRefs
        .filter((ref) => ref.weight > 0 && (audits[ref.id]?.score ?? 1) < 0.9)
        .map((ref) => `${category.id}/${ref.id} ${audits[ref.id]?.displayValue ?? audits[ref.id]?.score ?? ''}`.trim()),
    );
  return {
    page: new URL(url).pathname + (cookie ? ' (signed in)' : ''),
    performance: score('performance'),
    accessibility: score('accessibility'),
    seo: score('seo'),
    kib: Math.round(Number(audits['total-byte-weight']?.numericValue ?? 0) / 1024),
    cpu: Math.round(result.lhr.environment.benchmarkIndex),
    failing,
  };
}

async function main(): Promise<void> {
  const only = process.env.LIGHTHOUSE_PAGES?.split(',').filter(Boolean);
  const chosen = (pages: string[]) => (only ? pages.filter((page) => only.includes(page)) : pages);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-lighthouse-'));
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${dataDir}/bench.db`,
    DATA_DIR: dataDir,
    BACKGROUND_WORK: 'off',
  };
  const rows: Scores[] = [];
  try {
    await withChildServer('Roomstage', 'server/main.ts', env, '/api/health', async (server) => {
      const email = `bench-${Date.now()}@example.com`;
      const { token } = await postJson<{ token: string }>(`${server.url}/api/v1/auth/signup`, {
        email,
        password: 'bench-password-123',
      });
      const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: CHROMIUM_FLAGS });
      try {
        for (const page of chosen(VISITOR_PAGES)) rows.push(await audit(chrome.port, server.url + page, null));
        for (const page of chosen(ACCOUNT_PAGES))
          rows.push(await audit(chrome.port, server.url + page, `${SESSION_COOKIE_NAME}=${token}`));
      } finally {
        chrome.kill();
      }
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  console.table(rows.map(({ failing: _failing, ...scores }) => scores));
  const below = rows.filter((row) => row.performance < TARGET || row.seo < TARGET);
  for (const row of below) console.log(`below ${TARGET}: ${row.page} (performance ${row.performance}, SEO ${row.seo})`);
  for (const row of rows) for (const audit of row.failing) console.log(`  ${row.page}: ${audit}`);
  if (below.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

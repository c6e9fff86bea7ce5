import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { busyAccount } from '../helpers/busy-account.js';
import { onServer, roomJpeg } from '../fixtures/images.js';
import { operatorSecondFactor, operatorToken } from '../helpers/operators.js';
import { blockingViolations, CHECK_WIDTHS, pageReady, withFailureScreenshot } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const OPERATOR = 'a11y-operator@roomstage.example';

const VISITOR_PAGES = [
  '/',
  '/login',
  '/signup',
  '/forgot-password',
  '/reset-password?token=rst_unknown',
  '/reset-password',
  '/verify-email?token=vfy_unknown',
  '/verify-email',
  '/docs/',
  '/docs/images',
  '/docs/try',
  '/no-such-page',
];
const ACCOUNT_PAGES = [
  '/overview',
  '/keys',
  '/webhooks',
  '/billing',
  '/billing/transactions',
  '/billing/return?session_id=cs_unknown',
  '/usage',
  '/playground',
  '/claims',
  '/gallery',
  '/earnings',
  '/ads/products',
  '/ads/campaigns',
  '/ads/funds',
  '/ads/report',
  '/security',
  '/audit-log',
  '/docs/',
  '/no-such-page',
];

describe.skipIf(skipReason !== null)(`Accessibility (axe-core)${skipReason ? ` [skipped: ${skipReason}]` : ''}`, () => {
  const server = useTestServer('sqlite', async () => ({
    env: { ...(await browserServerEnv()), OPERATOR_EMAILS: OPERATOR },
  }));
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Visits each path at both widths (Swagger UI once it has drawn its operations) and collects findings. */
  async function checkPages(page: Page, paths: string[]): Promise<string[]> {
    const problems: string[] = [];
    for (const width of CHECK_WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of paths) {
        await page.goto(`${server.url}${path}`);
        await pageReady(page);
        if (path === '/docs/try') await page.locator('.opblock').first().waitFor();
        problems.push(...(await blockingViolations(page, `${path} at ${width}px`)));
      }
    }
    return problems;
  }

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: CHECK_WIDTHS[0], height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  it('A visitor meets no serious or critical axe-core violation on the home, sign-in, sign-up, password-reset, e-mail confirmation, API reference, Swagger UI and not-found pages, at 1280 px and 390 px', {
    timeout: 360_000,
  }, async () => {
    const page = await newPage();
    const problems = await withFailureScreenshot(page, 'accessibility-visitor', () => checkPages(page, VISITOR_PAGES));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("A signed-in account meets no serious or critical axe-core violation on any dashboard page, its key's webhook page or with the account menu open, at 1280 px and 390 px", {
    timeout: 300_000,
  }, async () => {
    const account = await busyAccount(server);
    const page = await newPage();
    const problems = await withFailureScreenshot(page, 'accessibility-account', async () => {
      await page.goto(`${server.url}/login`);
      await submitCredentials(page, account.email);
      const found = await checkPages(page, [...ACCOUNT_PAGES, `/keys/${account.keyId}/webhook`]);
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}/overview`);
        await page.locator('summary', { hasText: 'Account menu for ' }).click();
        found.push(...(await blockingViolations(page, `the account menu at ${width}px`)));
      }
      return found;
    });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('An operator meets no serious or critical axe-core violation on the console pages (search results, a busy account, payouts, fleet), at 1280 px and 390 px', {
    timeout: 180_000,
  }, async () => {
    const account = await busyAccount(server);
    await operatorToken(server, OPERATOR);
    const page = await newPage();
    const problems = await withFailureScreenshot(page, 'accessibility-operator', async () => {
      await page.goto(`${server.url}/login`);
      await submitCredentials(page, OPERATOR, operatorSecondFactor(server, OPERATOR));
      return checkPages(page, [
        `/admin?q=${encodeURIComponent(account.email)}`,
        `/admin/accounts/${account.userId}`,
        '/admin/payouts',
        '/admin/fleet?days=30',
      ]);
    });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("A visitor meets no serious or critical axe-core violation on a staged image's original page or an unknown one, at 1280 px and 390 px", {
    timeout: 120_000,
  }, async () => {
    const { key } = await signUpWithKey(server.api);
    const staged = await server.api.post('/api/v1/stage', {
      token: key,
      json: { image: (await roomJpeg(640, 400)).toString('base64'), disclosure: 'ca_ab723' },
    });
    expect(staged.status, staged.text).toBe(200);
    const page = await newPage();
    const problems = await withFailureScreenshot(page, 'accessibility-original', () =>
      checkPages(page, [onServer(staged.body.original_url), '/o/AAAAAAAAAAAAAAAAAAAAAAAAAA']),
    );
    expect(problems).toEqual([]);
    // Served without JavaScript: the page is whole as the server sends it.
    expect(await page.locator('script').count()).toBe(0);
    await page.context().close();
  });

  it('Swagger UI (/docs/try) stays free of serious or critical violations with the operations that take the most kinds of input opened', {
    timeout: 180_000,
  }, async () => {
    const page = await newPage();
    const problems = await withFailureScreenshot(page, 'accessibility-docs-open', async () => {
      await page.goto(`${server.url}/docs/try`);
      await page.locator('.opblock').first().waitFor();
      // Uploads and enums (Images), an enum query parameter (Claims), dates (Usage): every kind of field and example.
      // Each tag heading carries its name in data-tag (its text holds the tag's description too).
      const tags = page.locator('.opblock-tag-section', {
        has: page.locator('h3[data-tag="Images"], h3[data-tag="Claims"], h3[data-tag="Usage"]'),
      });
      const operations = await tags.locator('.opblock-summary-control').all();
      expect(operations.length).toBeGreaterThan(3);
      for (const operation of operations) await operation.click();
      await page.locator('.opblock-body').first().waitFor();
      return blockingViolations(page, `/docs/try with ${operations.length} operations open`);
    });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

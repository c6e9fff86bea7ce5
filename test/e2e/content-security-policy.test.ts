import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../fixtures/api-client.js';
import { browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const POLL = { timeout: 10_000, interval: 100 };

describe.skipIf(skipReason !== null)(
  `Content Security Policy in a browser${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useTestServer('sqlite');
    let browser: Browser;
    let page: Page;
    /** Every console message Chromium writes about a Content Security Policy violation, with the page it was on. */
    const violations: string[] = [];

    beforeAll(async () => {
      browser = await launchChromium();
      page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => violations.push(`${page.url()}: page error ${error.message}`));
    });
    afterAll(async () => {
      await browser?.close();
    });

    /** Remix only sets up its router once its inline scripts (which need the nonce) have run. */
    async function expectHydrated() {
      await expect
        .poll(() => page.evaluate(() => typeof (window as { __remixRouter?: unknown }).__remixRouter), POLL)
        .toBe('object');
    }

    it('The public pages load, hydrate and break no Content Security Policy rule', async () => {
      for (const path of ['/', '/login', '/signup', '/no-such-page']) {
        await page.goto(`${server.url}${path}`);
        await expectHydrated();
      }
      expect(violations).toEqual([]);
    });

    it('A staging company signs up, creates a key and visits every dashboard page with no Content Security Policy violation', async () => {
      await page.goto(`${server.url}/signup`);
      await expectHydrated();
      await submitCredentials(page, uniqueEmail('csp'));
      await page.goto(`${server.url}/keys`);
      await expectHydrated();
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect.poll(() => page.getByLabel('Secret key').inputValue(), POLL).toMatch(/^sk_live_/);
      // The checkout return page with an unknown session shows its notice and buys nothing.
      const pages = [
        '/overview',
        '/keys',
        '/webhooks',
        '/playground',
        '/usage',
        '/billing',
        '/billing/transactions',
        '/billing/return?session_id=cs_unknown',
        '/claims',
        '/gallery',
      ];
      for (const path of pages) {
        await page.goto(`${server.url}${path}`);
        await expectHydrated();
      }
      expect(violations).toEqual([]);
    });

    it('The API reference at /docs leads from its index to an operation on its tag page, with no script and no Content Security Policy violation', async () => {
      await page.goto(`${server.url}/docs/`);
      expect(await page.locator('script').count()).toBe(0);
      await page.getByRole('main').getByRole('link', { name: 'POST /api/v1/stage' }).click();
      await expect
        .poll(() => page.evaluate(() => location.pathname + location.hash), POLL)
        .toBe('/docs/images#op-staging-stage');
      const heading = page.locator('#op-staging-stage');
      await expect.poll(() => heading.isVisible(), POLL).toBe(true);
      await expect
        .poll(() => heading.evaluate((element) => Math.round(element.getBoundingClientRect().top)), POLL)
        .toBeLessThan(100);
      // The contents beside the operations lead to another tag's page.
      await page
        .getByRole('navigation', { name: 'Contents' })
        .getByRole('link', { name: 'Claims', exact: true })
        .click();
      await expect.poll(() => page.locator('h1').textContent(), POLL).toBe('Claims');
      expect(await page.locator('script').count()).toBe(0);
      expect(violations).toEqual([]);
    });

    it('Swagger UI at /docs/try renders the API under its Content Security Policy', async () => {
      await page.goto(`${server.url}/docs/try`);
      await expect.poll(() => page.locator('.opblock').count(), POLL).toBeGreaterThan(5);
      expect(violations).toEqual([]);
    });
  },
);

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../db/transaction.js';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import { uniqueEmail } from '../fixtures/api-client.js';
import { browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { expectPageFits } from '../helpers/page-checks.js';
import { useImagingServer } from '../helpers/staging.js';

const skipReason = browserSkipReason();
const POLL = { timeout: 10_000, interval: 100 };

describe.skipIf(skipReason !== null)(
  `Usage and transactions in a browser${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useImagingServer('sqlite');
    let browser: Browser;
    let page: Page;
    let accountId: string;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('A staging company stages a photo and sees it in the usage totals, the daily chart and the per-key table', async () => {
      page = await browser.newPage();
      page.setDefaultTimeout(5_000);
      await page.goto(`${server.url}/signup`);
      await submitCredentials(page, uniqueEmail('usage'));
      await page.goto(`${server.url}/keys`);
      await page.getByLabel('Name').fill('Studio server');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = page.getByLabel('Secret key');
      await expect.poll(() => secret.inputValue(), { timeout: 10_000 }).toMatch(/^sk_live_/);
      const key = await secret.inputValue();
      const staged = await server.api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: await roomJpeg(400, 300) }, { data: await roomJpeg(400, 300) }]),
      });
      expect(staged.status).toBe(200);
      accountId = (
        await server.services.db
          .selectFrom('api_keys')
          .select('account_id')
          .where('name', '=', 'Studio server')
          .executeTakeFirstOrThrow()
      ).account_id;

      await page.goto(`${server.url}/usage`);
      const stat = (label: string) =>
        page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
      expect(await stat('Images staged').first().textContent()).toBe('2');
      expect(await stat('Credits used').first().textContent()).toBe('2');
      expect(await page.getByRole('img', { name: /^Images staged: 2 images from .* at most 2 a day\.$/ }).count()).toBe(
        1,
      );
      expect(
        await page
          .getByRole('row', { name: /Studio server/ })
          .getByRole('cell')
          .first()
          .textContent(),
      ).toBe('2');
      for (const label of ['From', 'To', 'API key'])
        expect(await page.getByLabel(label, { exact: true }).count()).toBe(1);
    });

    it('A staging company narrows usage to a date range with no work and sees zeros', async () => {
      await page.getByLabel('From', { exact: true }).fill('2026-01-01');
      await page.getByLabel('To', { exact: true }).fill('2026-01-31');
      await page.getByRole('button', { name: 'Show usage' }).click();
      await page.waitForURL(/from=2026-01-01/);
      await expect
        .poll(
          () => page.getByRole('img', { name: /^Credits used: 0 credits from 2026-01-01 to 2026-01-31/ }).count(),
          POLL,
        )
        .toBe(1);
    });

    it('A staging company who types a reversed range is told so and sees the last 30 days', async () => {
      await page.goto(`${server.url}/usage?from=2026-02-10&to=2026-02-01`);
      expect(await page.getByRole('alert').textContent()).toContain('from must be on or before to.');
      expect(await page.getByRole('img', { name: /^Images staged: 2 images/ }).count()).toBe(1);
    });

    it('A staging company pages through its transactions, newest first', async () => {
      const now = server.clock.now();
      for (let i = 1; i <= 30; i++) {
        await inTransaction(server.services.db, (trx) =>
          changeCredits(trx, { accountId, delta: 1, reason: 'purchase', reference: `order-${i}`, now }),
        );
      }
      await page.goto(`${server.url}/billing/transactions`);
      expect(await page.getByRole('row').filter({ hasText: 'order-30' }).count()).toBe(1);
      expect(await page.getByText('Signup bonus').count()).toBe(0);
      await page.getByRole('link', { name: 'Older →' }).click();
      await page.waitForURL(/starting_after=txn_/);
      await expect.poll(() => page.getByText('Signup bonus').count(), POLL).toBe(1);
      expect(await page.getByRole('row').filter({ hasText: 'Staging' }).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Older →' }).count()).toBe(0);
      await page.getByRole('link', { name: '← Newest' }).click();
      await page.waitForURL((url) => url.search === '');
      // The client router changes the URL before React renders the page it loaded, so the row is waited for.
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'order-30' }).count(), POLL).toBe(1);
    });

    it('Usage and transactions fit their cards on a desktop and on a phone', async () => {
      for (const path of ['/usage', '/billing/transactions']) {
        await page.goto(`${server.url}${path}`);
        await expectPageFits(page);
      }
    });
  },
);

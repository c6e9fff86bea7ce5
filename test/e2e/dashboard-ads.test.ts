import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placedListing, serveToViewers, sofaPng } from '../fixtures/ads.js';
import { signUp, uniqueEmail } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { onServer } from '../fixtures/images.js';
import { confirmEmail } from '../fixtures/mail.js';
import { expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { useImagingServer } from '../helpers/staging.js';

const skipReason = browserSkipReason();
const POLL = { timeout: 10_000, interval: 100 };
const ADVERTISE_PAGES = ['Products', 'Campaigns', 'Funds', 'Report'];

describe.skipIf(skipReason !== null)(
  `Sponsored products in the dashboard${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useImagingServer('sqlite', async () => ({ env: await browserServerEnv() }));
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function newPage(): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(15_000);
      return page;
    }

    /** Opens a page from the navigation, as a person would, and waits until the client router has rendered it. */
    async function openFromNav(page: Page, label: string, path: string) {
      const nav = page.getByRole('navigation', { name: 'Main', exact: true });
      // The Advertise pages sit in the bar's Advertise menu.
      if (ADVERTISE_PAGES.includes(label)) await nav.locator('summary', { hasText: 'Advertise' }).click();
      await nav.getByRole('link', { name: label, exact: true }).click();
      await page.waitForURL(`**${path}`);
      await nav.locator('a[aria-current="page"]', { hasText: label }).waitFor({ state: 'attached' });
    }

    // About 14 s alone; it walks four dashboard pages and two sign-ins, so it gets room for a loaded machine.
    it("A brand uploads a sofa, funds a campaign, and sees its impressions after an agent's listing is viewed", {
      timeout: 90_000,
    }, async () => {
      const page = await newPage();
      await withFailureScreenshot(page, 'ads-brand-campaign', async () => {
        const email = uniqueEmail('brand');
        await page.goto(`${server.url}/signup`);
        await submitCredentials(page, email);
        // Buying funds needs a confirmed address: the link of the verification e-mail.
        await confirmEmail(server, email);

        // The product: a preview in a sample room before anything is uploaded, then the upload.
        await openFromNav(page, 'Products', '/ads/products');
        expect(await page.getByText('No products yet.').count()).toBe(1);
        await page.getByLabel('Name').fill('Cloud Sofa');
        await page
          .getByLabel('Product picture')
          .setInputFiles({ name: 'sofa.png', mimeType: 'image/png', buffer: await sofaPng() });
        await page.getByRole('img', { name: 'Preview: Cloud Sofa in a sample living room' }).waitFor();
        await page.getByLabel('Brand').fill('Brandco');
        await page.getByLabel('Category').selectOption('sofa');
        await page.getByRole('checkbox', { name: 'Living room' }).check();
        await page.getByRole('button', { name: 'Upload product' }).click();
        await page.getByText('“Cloud Sofa” is uploaded and active.').waitFor();
        await expect.poll(() => page.getByRole('row', { name: /Cloud Sofa/ }).count(), POLL).toBe(1);
        await expectPageFits(page, 'ads-products');

        // Funds through the simulated checkout, as credits are bought.
        await openFromNav(page, 'Funds', '/ads/funds');
        await page.getByLabel('Amount in dollars ($10–$10,000)').fill('50');
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        await page.waitForURL('**/billing/simulated-checkout/*');
        expect(await page.getByRole('heading', { name: '$50.00 of advertising funds added' }).count()).toBe(1);
        // Back from checkout to the funds page, which says what the payment added.
        await page.getByRole('link', { name: 'Back to advertising funds' }).click();
        await page.waitForURL('**/ads/funds?session_id=*');
        expect(await page.getByText('$50.00 of advertising funds were added.').count()).toBe(1);
        expect(await page.getByText('You have $50.00 of advertising funds.').count()).toBe(1);
        expect(await page.getByRole('row', { name: /Purchase/ }).count()).toBe(1);

        // A campaign: a bad budget is explained in a sentence, then it starts.
        await openFromNav(page, 'Campaigns', '/ads/campaigns');
        await page.getByLabel('Campaign name').fill('Autumn sofas');
        await page.getByRole('checkbox', { name: 'Cloud Sofa (Brandco)' }).check();
        await page.getByLabel(/^Price per 1 000 views/).fill('100');
        await page.getByLabel(/^Total budget/).fill('ten dollars');
        await page.getByRole('button', { name: 'Start campaign' }).click();
        await page.getByText('Enter the total budget in dollars, such as 25 or 12.50.').waitFor();
        await page.getByLabel(/^Total budget/).fill('20');
        await page.getByRole('button', { name: 'Start campaign' }).click();
        await page.getByText('Campaign “Autumn sofas” is active.').waitFor();
        await expectPageFits(page, 'ads-campaigns');

        // A staging company places products in an agent's listing, and three people look at it.
        const listing = await placedListing(server.api);
        expect(listing.placements.filter((placement) => placement.sponsored)).toHaveLength(1);
        const statuses = await serveToViewers(server.url, listing.imagePath, ['one', 'two', 'three']);
        expect(statuses).toEqual([200, 200, 200]);

        await openFromNav(page, 'Report', '/ads/report');
        const stat = (label: string) =>
          page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
        expect(await stat('Billed impressions').textContent()).toBe('3');
        expect(await stat('Unbilled impressions').textContent()).toBe('0');
        expect(await stat('Invalid impressions \\(refunded\\)').textContent()).toBe('0');
        expect(await stat('Spend').textContent()).toBe('$0.30');
        expect(await page.getByRole('img', { name: /^Impressions: 3 impressions from / }).count()).toBe(1);
        expect(await page.getByRole('row', { name: /Autumn sofas\s+3\s+0\s+0\s+\$0\.30/ }).count()).toBe(1);
        await expectPageFits(page, 'ads-report');

        await openFromNav(page, 'Campaigns', '/ads/campaigns');
        expect(
          await page
            .getByRole('row', { name: /Autumn sofas/ })
            .getByText('$0.30 of $20.00')
            .count(),
        ).toBe(1);
        await page.getByRole('button', { name: 'Pause Autumn sofas' }).click();
        await page.getByText('Campaign “Autumn sofas” is paused.').waitFor();
      });
      await page.close();
    });

    it('An agent requests a payout of their earnings', async () => {
      // An advertiser pays 10 cents an impression; 300 views of the agent's listing earn the agent $15.
      const brand = await signUp(server.api);
      await confirmEmail(server, brand.email);
      const product = await server.api.post('/api/v1/ads/products', {
        token: brand.token,
        json: {
          image: (await sofaPng()).toString('base64'),
          name: 'Velvet Sofa',
          brand: 'Brandco',
          category: 'sofa',
          room_types: ['living_room'],
        },
      });
      expect(product.status).toBe(201);
      const checkout = await server.api.post('/api/v1/ads/funds/checkout', {
        token: brand.token,
        json: { amount_cents: 10_000 },
      });
      expect((await fetch(new URL(onServer(checkout.body.checkout_url), server.url))).status).toBe(200);
      await server.services.db.updateTable('campaigns').set({ status: 'paused' }).execute();
      const campaign = await server.api.post('/api/v1/ads/campaigns', {
        token: brand.token,
        json: { name: 'Velvet', product_ids: [product.body.id], cpm_cents: 10_000, total_budget_cents: 5_000 },
      });
      expect(campaign.status).toBe(201);
      const agent = await signUp(server.api, uniqueEmail('agent'));
      const listing = await placedListing(server.api, { agentToken: agent.token });
      const viewers = Array.from({ length: 300 }, (_, i) => `viewer-${i}`);
      for (let at = 0; at < viewers.length; at += 50)
        await serveToViewers(server.url, listing.imagePath, viewers.slice(at, at + 50));

      const page = await newPage();
      await withFailureScreenshot(page, 'ads-agent-payout', async () => {
        await page.goto(`${server.url}/login`);
        await submitCredentials(page, agent.email);
        await openFromNav(page, 'Earnings', '/earnings');
        const stat = (label: string) =>
          page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
        // Earnings are held for EARNINGS_HOLD (7 days) before they can be paid out.
        expect(await stat('Available').textContent()).toBe('$0.00');
        expect(await stat('Held').textContent()).toBe('$15.00');
        server.clock.advance(7 * 86_400_000 + 1);
        await page.reload();
        expect(await stat('Available').textContent()).toBe('$15.00');
        expect(await stat('Held').textContent()).toBe('$0.00');
        expect(await page.getByRole('row', { name: /img_\S+\s+300\s+0\s+\$15\.00/ }).count()).toBe(1);
        expect(await page.getByText('No payouts yet.').count()).toBe(1);

        const amount = page.getByLabel('Amount in dollars (at least $10)');
        await amount.fill('5');
        await page.getByRole('button', { name: 'Request payout' }).click();
        await page.getByText('A payout must be at least $10.00.').waitFor();
        await amount.fill('20');
        await page.getByRole('button', { name: 'Request payout' }).click();
        await page
          .getByText('That is more than your available earnings (held earnings are not available yet). Ask for less.')
          .waitFor();
        await amount.fill('12.50');
        await page.getByRole('button', { name: 'Request payout' }).click();
        await page.getByText('Payout of $12.50 requested.').waitFor();
        await expect.poll(() => stat('Available').textContent(), POLL).toBe('$2.50');
        expect(await stat('Requested').textContent()).toBe('$12.50');
        expect(await page.getByRole('row', { name: /\$12\.50\s+requested/ }).count()).toBe(1);
        await expectPageFits(page, 'earnings');
      });
      await page.close();
    });
  },
);

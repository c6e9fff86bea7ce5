import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithKey, uniqueEmail } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { dataUrl, roomJpeg } from '../fixtures/images.js';
import { expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { confirmEmail } from '../fixtures/mail.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const POLL = { timeout: 15_000, interval: 100 };

describe.skipIf(skipReason !== null)(
  `Dashboard flows in a browser${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useTestServer('sqlite', async () => ({ env: await browserServerEnv() }));
    let browser: Browser;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      browser = await launchChromium();
      receiver = await WebhookReceiver.start();
    });
    afterAll(async () => {
      await browser?.close();
      await receiver?.close();
    });

    async function newPage(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return page;
    }

    async function signUpInBrowser(page: Page, email: string) {
      await page.goto(`${server.url}/signup`);
      await expectPageFits(page, 'signup');
      await submitCredentials(page, email);
    }

    /** Opens a page from the navigation bar, as a person would, and checks it fits at both widths. */
    async function openFromNav(page: Page, label: string, path: string) {
      const nav = page.getByRole('navigation', { name: 'Main', exact: true });
      await nav.getByRole('link', { name: label, exact: true }).click();
      await page.waitForURL(`**${path}`);
      // The client router changes the URL before React renders the new page; the link marked current shows it has.
      await nav.locator('a[aria-current="page"]', { hasText: label }).waitFor();
      await expectPageFits(page, path);
    }

    it('A staging company signs up, creates a key, stages a photo in the playground and sees the curl command', async () => {
      const page = await newPage();
      await withFailureScreenshot(page, 'staging-company-playground', async () => {
        await signUpInBrowser(page, uniqueEmail('studio'));
        await expectPageFits(page, 'overview');
        expect(await page.getByText('Create your first key').count()).toBe(1);

        await openFromNav(page, 'API', '/keys');
        await page.getByLabel('Name').fill('Website');
        await page.getByRole('button', { name: 'Create key' }).click();
        const secret = page.getByLabel('Secret key');
        await expect.poll(() => secret.inputValue(), POLL).toMatch(/^sk_live_/);
        const key = await secret.inputValue();
        // The new-key panel shows ready-to-run calls with the full key filled in.
        expect(await page.getByLabel('curl').inputValue()).toContain(`Authorization: Bearer ${key}`);
        expect(await page.getByLabel('Python (requests)').inputValue()).toContain(`"Authorization": "Bearer ${key}"`);
        await expectPageFits(page, 'keys-with-new-key');

        await openFromNav(page, 'Playground', '/playground');
        await page.getByLabel('Style').selectOption('scandinavian');
        await page.getByLabel('Room type').selectOption('bedroom');
        await page.getByRole('button', { name: 'Stage photo' }).click();
        await expect.poll(() => page.getByRole('status').filter({ hasText: 'Staged' }).count(), POLL).toBe(1);

        // Before and after, both loaded: the original from the dashboard, the staged image from /images.
        const before = page.getByAltText('Your photo before staging');
        const after = page.getByAltText('The photo staged as a scandinavian bedroom');
        await expect
          .poll(() => before.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), POLL)
          .toBeGreaterThan(0);
        await expect
          .poll(() => after.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), POLL)
          .toBeGreaterThan(0);
        await page.getByLabel(/Before and after: how much of the original to show/).fill('20');

        const curl = await page.getByLabel('curl').inputValue();
        expect(curl).toContain(`curl -s ${server.url}/api/v1/stage`);
        expect(curl).toContain(`Bearer ${key.slice(0, 12)}…`);
        expect(curl).toContain('style=scandinavian -F room_type=bedroom');
        expect(await page.getByLabel('Python (requests)').inputValue()).toContain('import requests');
        await expectPageFits(page, 'playground-result');

        // One credit was spent through the key, exactly as an API call would.
        expect((await server.api.get('/api/v1/credits', { token: key })).body.credits).toBe(9);

        await openFromNav(page, 'Overview', '/overview');
        expect(await page.locator('.stat__value').first().textContent()).toContain('9');
        expect(await page.getByRole('row').count()).toBe(2);
        await openFromNav(page, 'Webhooks', '/webhooks');
        await openFromNav(page, 'Claims', '/claims');
        await openFromNav(page, 'Images', '/gallery');
      });
      await page.context().close();
    });

    it('An agent redeems a code and downloads an image', async () => {
      // The staging company's side, through the API.
      const studio = await signUpWithKey(server.api);
      const staged = await server.api.post('/api/v1/stage', {
        token: studio.key,
        json: { image: dataUrl(await roomJpeg(900, 600)), style: 'modern' },
      });
      expect(staged.status).toBe(200);
      const code: string = staged.body.claim_code;

      const page = await newPage();
      await withFailureScreenshot(page, 'agent-redeems-and-downloads', async () => {
        await signUpInBrowser(page, uniqueEmail('agent'));
        await openFromNav(page, 'Claims', '/claims');
        await page.getByLabel('Claim code').fill(code.toLowerCase());
        await page.getByRole('button', { name: 'Check code' }).click();
        const redeem = page.getByRole('button', { name: 'Redeem 1 image' });
        await redeem.waitFor();
        expect(await page.getByText('Ready to redeem').count()).toBe(1);
        await expectPageFits(page, 'claims-preview');
        await redeem.click();
        await expect.poll(() => page.getByText(`Claim ${code} redeemed`).count(), POLL).toBe(1);
        await expectPageFits(page, 'claims-redeemed');

        await page.getByRole('link', { name: 'View and download your images' }).click();
        await page.waitForURL('**/gallery');
        // The client router changes the URL before React renders the gallery, so its heading is waited for.
        await page.getByRole('heading', { name: '1 image' }).waitFor();
        await expectPageFits(page, 'gallery');
        const original = page.getByAltText(/The original photo of image/);
        await expect
          .poll(() => original.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), POLL)
          .toBeGreaterThan(0);

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: /^Download/ }).click(),
        ]);
        const file = await download.path();
        const bytes = readFileSync(file!);
        expect(bytes.subarray(0, 2).toString('hex')).toBe('ffd8'); // a JPEG
        expect(bytes.length).toBeGreaterThan(1000);
      });
      await page.context().close();
    });

    it('A webhook test is sent and shows in the delivery log', async () => {
      const page = await newPage();
      await withFailureScreenshot(page, 'webhook-test-delivery-log', async () => {
        await signUpInBrowser(page, uniqueEmail('hooks'));
        await openFromNav(page, 'API', '/keys');
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByLabel('Secret key').waitFor();

        await openFromNav(page, 'Webhooks', '/webhooks');
        await page.getByRole('link', { name: /Set up the webhook of key/ }).click();
        await page.waitForURL('**/webhook');
        // With no url yet, the disabled test button says why.
        expect(await page.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
        expect(await page.getByText('Save a url under Endpoint first').count()).toBe(1);
        // The test server allows private addresses, and the help text says so.
        expect(await page.getByText('also accepts private and loopback addresses').count()).toBe(1);
        await expectPageFits(page, 'webhook-empty');

        await page.getByLabel('Url', { exact: true }).fill(receiver.url);
        await page.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => page.getByText('Webhook saved and enabled').count(), POLL).toBe(1);
        await page.getByRole('button', { name: 'Send test' }).click();
        await expect.poll(() => page.getByText('Delivered', { exact: true }).count(), POLL).toBe(1);

        const row = page.getByRole('row').filter({ hasText: 'test.ping' });
        await expect.poll(() => row.count(), POLL).toBe(1);
        expect(await row.getByText('delivered', { exact: true }).count()).toBe(1);
        expect(await row.getByText('HTTP 200').count()).toBe(1);
        expect(
          receiver.requests.some(
            (request) => request.path.endsWith('/hooks') && request.headers['x-webhook-event'] === 'test.ping',
          ),
        ).toBe(true);
        await expectPageFits(page, 'webhook-with-deliveries');

        await row.getByRole('button', { name: /Resend/ }).click();
        await expect.poll(() => page.getByText(/is queued again/).count(), POLL).toBe(1);

        await openFromNav(page, 'Webhooks', '/webhooks');
        expect(await page.getByText('enabled', { exact: true }).count()).toBe(1);

        // Signing out from the account menu is confirmed on the page it lands on.
        await page.locator('summary', { hasText: 'Account menu for ' }).click();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await expect.poll(() => page.getByText('You are signed out').count(), POLL).toBe(1);
        await expectPageFits(page, 'signed-out-home');
      });
      await page.context().close();
    });

    it('A staging company buys credits and turns on auto top-up', async () => {
      const page = await newPage();
      await withFailureScreenshot(page, 'staging-company-billing', async () => {
        const buyer = uniqueEmail('buyer');
        await signUpInBrowser(page, buyer);
        // Buying needs a confirmed address: the link of the verification e-mail.
        await confirmEmail(server, buyer);
        await openFromNav(page, 'Billing', '/billing');
        await page.getByText('No card on file').waitFor();
        // Without a card the auto top-up switch cannot be turned on, and the page says why.
        expect(await page.getByLabel('Buy credits automatically when the balance runs low').isDisabled()).toBe(true);

        // Buy with a preset; with no Stripe keys the checkout is this server's simulated page.
        await page.getByRole('radio', { name: '10 credits ($10)' }).check();
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        await page.waitForURL('**/billing/simulated-checkout/*');
        expect(await page.getByText('Simulated payment', { exact: true }).count()).toBe(1);
        expect(await page.getByRole('heading', { name: '10 credits added' }).count()).toBe(1);
        await expectPageFits(page, 'simulated-checkout');
        await page.getByRole('link', { name: 'Back to billing' }).click();
        await page.waitForURL('**/billing/return?session_id=*');
        expect(
          await page.getByRole('status').filter({ hasText: '10 credits were added to your balance' }).count(),
        ).toBe(1);
        await expectPageFits(page, 'billing-return');
        await page.getByRole('link', { name: 'Back to billing' }).click();
        await page.waitForURL('**/billing');

        // The balance and the simulated card, saved by the purchase (waited for: the client router renders after the URL changes).
        await page.getByText('You have 10 credits.').waitFor();
        const card = page.getByRole('region', { name: 'Card on file' });
        expect(await card.getByText(/VISA •••• 4242/).count()).toBe(1);
        expect(await card.getByText('simulated', { exact: true }).count()).toBe(1);
        await expectPageFits(page, 'billing-with-card');

        const autoTopUp = page.getByRole('region', { name: 'Auto top-up' });
        await autoTopUp.getByLabel('Buy credits automatically when the balance runs low').check();
        await autoTopUp.getByLabel(/When the balance falls below/).fill('20');
        await autoTopUp.getByLabel(/Credits to buy each time/).fill('25');
        await autoTopUp.getByLabel(/Monthly limit in credits/).fill('100');
        await autoTopUp.getByRole('button', { name: 'Save auto top-up' }).click();
        await expect
          .poll(() => autoTopUp.getByRole('status').filter({ hasText: 'Auto top-up settings saved.' }).count(), POLL)
          .toBe(1);
        await expectPageFits(page, 'billing-auto-topup-saved');

        // The first key brings 10 free credits (20); one staged photo leaves 19, below the threshold of 20.
        await openFromNav(page, 'API', '/keys');
        await page.getByRole('button', { name: 'Create key' }).click();
        const secret = page.getByLabel('Secret key');
        await expect.poll(() => secret.inputValue(), POLL).toMatch(/^sk_live_/);
        const key = await secret.inputValue();
        const staged = await server.api.post('/api/v1/stage', {
          token: key,
          json: { image: dataUrl(await roomJpeg(900, 600)), style: 'modern' },
        });
        expect(staged.status).toBe(200);
        expect(staged.body.credits_remaining).toBe(19);

        // The top-up runs after the charge; the dashboard shows 19 + 25.
        await openFromNav(page, 'Billing', '/billing');
        await expect
          .poll(async () => {
            await page.reload();
            return page.getByText('You have 44 credits.').count();
          }, POLL)
          .toBe(1);
        await expectPageFits(page, 'billing-after-topup');
        // The billing page lists the latest changes itself; the newest is the top-up.
        const recent = page.getByRole('region', { name: 'Recent transactions' }).getByRole('row');
        expect(await recent.nth(1).textContent()).toMatch(/Auto top-up.*\+25.*44/);

        await page.getByRole('link', { name: 'transactions', exact: true }).click();
        await page.waitForURL('**/billing/transactions');
        await page.getByRole('heading', { name: 'Latest transactions' }).waitFor();
        await expectPageFits(page, '/billing/transactions');
        const rows = page.getByRole('row');
        expect(await rows.filter({ hasText: 'Purchase' }).filter({ hasText: '+10' }).count()).toBe(1);
        expect(await rows.filter({ hasText: 'Auto top-up' }).filter({ hasText: '+25' }).count()).toBe(1);
        expect(await rows.filter({ hasText: 'Auto top-up' }).filter({ hasText: '44' }).count()).toBe(1);
      });
      await page.context().close();
    });
  },
);

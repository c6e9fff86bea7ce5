import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithKey, signUp } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { operatorSecondFactor, operatorToken } from '../helpers/operators.js';
import { expectAccessible, expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';
import { placedListing, serveToViewers, sofaPng } from '../fixtures/ads.js';
import { onServer } from '../fixtures/images.js';
import { confirmEmail } from '../fixtures/mail.js';

const skipReason = browserSkipReason();
const OPERATOR = 'console-operator@roomstage.example';
const CONSOLE_PAGES = ['/admin', '/admin/payouts', '/admin/fleet'];

describe.skipIf(skipReason !== null)(`The operator console${skipReason ? ` [skipped: ${skipReason}]` : ''}`, () => {
  const server = useTestServer('sqlite', async () => ({
    env: { ...(await browserServerEnv()), OPERATOR_EMAILS: OPERATOR },
  }));
  let browser: Browser;
  let operator: string;

  beforeAll(async () => {
    browser = await launchChromium();
    operator = await operatorToken(server, OPERATOR);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  it('An operator finds an abusive account by its key prefix, suspends it, and its key stops working', {
    timeout: 180_000,
  }, async () => {
    const abuser = await signUpWithKey(server.api);
    const key = (await server.api.get('/api/v1/keys', { token: abuser.token })).body.keys[0];
    expect((await server.api.get('/api/v1/credits', { token: abuser.key })).status).toBe(200);
    const page = await newPage();
    await withFailureScreenshot(page, 'operator-console', async () => {
      await page.goto(`${server.url}/login`);
      await submitCredentials(page, OPERATOR, operatorSecondFactor(server, OPERATOR));
      await page.locator('summary', { hasText: 'Account menu for ' }).click();
      await page.locator('.account-menu').getByRole('link', { name: 'Operator console', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/admin');
      await page.getByRole('heading', { name: 'Operator console', level: 1 }).waitFor();
      await expectPageFits(page, 'admin-search');
      await expectAccessible(page, 'admin-search');

      await page.getByLabel(/key prefix/).fill(key.prefix);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL('**/admin?q=*');
      // The client router changes the URL before it renders the page it loaded: poll the rows, not the URL.
      const rows = page.locator('table tbody tr');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain(abuser.email);
      await expectPageFits(page, 'admin-search-results');
      await rows.first().getByRole('link', { name: abuser.userId }).click();
      await page.waitForURL(`**/admin/accounts/${abuser.userId}`);
      await page.getByRole('heading', { name: abuser.email, level: 1 }).waitFor();
      await expectPageFits(page, 'admin-account');
      await expectAccessible(page, 'admin-account');

      // A deduction below zero: the API's sentence, beside the form it came from.
      const credits = page.getByRole('form', { name: 'Grant or deduct credits' });
      await credits.getByLabel('Credits (+ to grant, − to deduct)').fill('-1000');
      await credits.getByLabel('Reason').fill('claw back the bonus');
      await credits.getByRole('button', { name: 'Change credits' }).click();
      await credits.getByText('The account has 10 credits: a deduction of 1000 would take it below zero.').waitFor();

      const suspension = page.getByRole('form', { name: 'Suspend the account' });
      await suspension.getByLabel('Reason').fill('card testing from this key');
      await suspension.getByRole('button', { name: 'Suspend account' }).click();
      await page.getByText('Suspended. Its keys and sessions are refused from their next request').waitFor();
      await page.getByRole('form', { name: 'Restore the account' }).waitFor();

      const refused = await server.api.get('/api/v1/credits', { token: abuser.key });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('account_suspended');

      // The account's audit log, on the same page, shows the operator's entry with the reason.
      const audit = page.getByRole('region', { name: 'Audit log entries' });
      await audit.getByText('operator.account_suspended', { exact: true }).waitFor();
      const entry = audit.locator('tbody tr', { hasText: 'operator.account_suspended' });
      expect(await entry.textContent()).toContain('card testing from this key');
      expect(await entry.textContent()).toContain(OPERATOR);
      await expectPageFits(page, 'admin-account-suspended');
      await expectAccessible(page, 'admin-account-suspended');

      for (const path of CONSOLE_PAGES.slice(1)) {
        await page.goto(`${server.url}${path}`);
        await page.locator('h1').waitFor();
        await expectPageFits(page, path);
        await expectAccessible(page, path);
      }
    });
    await page.context().close();

    // The owner reads the same entry in their own audit log.
    await server.api.post(`/api/v1/admin/accounts/${abuser.userId}/unsuspend`, {
      token: operator,
      json: { reason: 'cleared after review' },
    });
    const log = await server.api.get('/api/v1/audit-log?action=operator.account_suspended', { token: abuser.token });
    expect(log.body.entries[0]).toMatchObject({ actor: { type: 'operator', label: OPERATOR } });
  });

  it('An operator refunds a campaign’s invalid traffic of a day from the account page', {
    timeout: 120_000,
  }, async () => {
    const brand = await signUp(server.api);
    await confirmEmail(server, brand.email);
    const product = await server.api.post('/api/v1/ads/products', {
      token: brand.token,
      json: {
        image: (await sofaPng()).toString('base64'),
        name: 'Farm Sofa',
        brand: 'Brandco',
        category: 'sofa',
        room_types: ['living_room'],
      },
    });
    const checkout = await server.api.post('/api/v1/ads/funds/checkout', {
      token: brand.token,
      json: { amount_cents: 10_000 },
    });
    expect((await fetch(new URL(onServer(checkout.body.checkout_url), server.url))).status).toBe(200);
    const campaign = await server.api.post('/api/v1/ads/campaigns', {
      token: brand.token,
      json: { name: 'Farmed', product_ids: [product.body.id], cpm_cents: 10_000, total_budget_cents: 5_000 },
    });
    expect(campaign.status).toBe(201);
    const listing = await placedListing(server.api);
    expect(await serveToViewers(server.url, listing.imagePath, ['farm-1', 'farm-2', 'farm-3'])).toEqual([
      200, 200, 200,
    ]);

    const page = await newPage();
    await withFailureScreenshot(page, 'operator-invalid-traffic', async () => {
      await page.goto(`${server.url}/login`);
      await submitCredentials(page, OPERATOR, operatorSecondFactor(server, OPERATOR));
      await page.goto(`${server.url}/admin/accounts/${brand.userId}`);
      const form = page.locator('form[aria-labelledby="invalid-traffic-title"]');
      await form.getByLabel('Reason').fill('\u200b');
      await form.getByRole('button', { name: 'Refund as invalid traffic' }).click();
      await form.getByText('A reason needs at least one visible letter or digit').waitFor();
      await form.getByLabel('Reason').fill('click farm on one network');
      await form.getByRole('button', { name: 'Refund as invalid traffic' }).click();
      await form.getByText(/^3 impressions on \d{4}-\d{2}-\d{2} are invalid now\. Refunded \$0\.30 /).waitFor();
      const row = page.getByRole('row', { name: /^Farmed / });
      await expect.poll(() => row.textContent()).toMatch(/\$0\.00 of \$50\.00\s*0\s*0\s*3$/);
      await expectPageFits(page, 'admin-account-invalid-traffic');
      await expectAccessible(page, 'admin-account-invalid-traffic');
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await form.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `/tmp/trust-ads-invalid-traffic-${width}.png` });
      }
    });
    await page.close();
    const funds = await server.api.get('/api/v1/ads/funds', { token: brand.token });
    expect(funds.body.balance_cents).toBe(10_000);
  });

  it('To anyone but an operator, the account owner included, every console page is the plain not-found page', {
    timeout: 60_000,
  }, async () => {
    const owner = await signUpWithKey(server.api);
    const unknown = await dashboardPage(server.url, '/no-such-page', owner.token);
    expect(unknown.status).toBe(404);
    for (const path of [...CONSOLE_PAGES, `/admin/accounts/${owner.userId}`]) {
      for (const token of [owner.token, '']) {
        const answer = await dashboardPage(server.url, path, token);
        expect(answer.status, `${path} ${token ? 'signed in' : 'anonymous'}`).toBe(404);
        expect(answer.location).toBeNull();
        expect(answer.html).toContain('<title>Page not found · Roomstage</title>');
        expect(answer.html).not.toContain('Operator console');
      }
    }
    // A change posted by hand is refused the same way, and changes nothing.
    const posted = await dashboardPage(server.url, `/admin/accounts/${owner.userId}`, owner.token, {
      form: 'suspension',
      intent: 'suspend',
      reason: 'I suspend myself',
    });
    expect(posted.status).toBe(404);
    expect((await server.api.get('/api/v1/credits', { token: owner.key })).status).toBe(200);
    // Their account menu has no console link.
    const overview = await dashboardPage(server.url, '/overview', owner.token);
    expect(overview.html).not.toContain('href="/admin"');
    expect((await dashboardPage(server.url, '/overview', operator)).html).toContain('href="/admin"');
  });

  it('Without JavaScript, an operator grants credits, restores a suspended account and marks a payout paid with plain form posts', {
    timeout: 60_000,
  }, async () => {
    const customer = await signUpWithKey(server.api);
    const path = `/admin/accounts/${customer.userId}`;
    const noReason = await dashboardPage(server.url, path, operator, { form: 'credits', delta: '5', reason: ' ' });
    expect(noReason.status).toBe(400);
    expect(noReason.html).toContain('A reason is required (1–500 characters)');
    const granted = await dashboardPage(server.url, path, operator, {
      form: 'credits',
      delta: '+15',
      reason: 'goodwill after an outage',
    });
    expect(granted.status).toBe(200);
    expect(granted.html).toContain('Added 15 credits. The balance is 25.');

    await dashboardPage(server.url, path, operator, { form: 'suspension', intent: 'suspend', reason: 'chargeback' });
    expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(403);
    const restored = await dashboardPage(server.url, path, operator, {
      form: 'suspension',
      intent: 'unsuspend',
      reason: 'chargeback withdrawn',
    });
    expect(restored.status).toBe(200);
    expect(restored.html).toContain('Restored. Its keys and sessions work again.');
    const balance = await server.api.get('/api/v1/credits', { token: customer.key });
    expect(balance.status).toBe(200);
    expect(balance.body.credits).toBe(25);

    // $20 earned (as impression billing records it), $12 asked for: the queue pays it once, the second try is refused.
    await server.services.db
      .insertInto('earnings_daily')
      .values({
        account_id: customer.userId,
        image_id: 'img_console_earning',
        day: Math.floor(Date.now() / 86_400_000),
        impressions: 4_000,
        earned_millicents: 2_000_000,
      })
      .execute();
    const payout = await server.api.post('/api/v1/earnings/payouts', {
      token: customer.token,
      json: { amount_cents: 1_200 },
    });
    expect(payout.status, payout.text).toBe(201);
    const queue = await dashboardPage(server.url, '/admin/payouts?status=requested', operator);
    expect(queue.html).toContain(`value="${payout.body.id}"`);
    const settle = { form: 'settle', intent: 'paid', payout_id: payout.body.id, reference: 'BANK-4711' };
    const paid = await dashboardPage(server.url, '/admin/payouts', operator, { ...settle, reason: 'sent by transfer' });
    expect(paid.status).toBe(200);
    expect(paid.html).toContain(`Payout of $12.00 to ${customer.email} marked paid (reference BANK-4711)`);
    const again = await dashboardPage(server.url, '/admin/payouts', operator, { ...settle, reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.html).toContain('role="alert"');
  });
});

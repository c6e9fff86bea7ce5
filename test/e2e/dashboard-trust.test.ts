import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { createKey, signUp } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium } from '../helpers/browser.js';
import { busyAccount } from '../helpers/busy-account.js';
import { confirmEmail, tokenFromOutbox } from '../fixtures/mail.js';
import { operatorToken } from '../helpers/operators.js';
import {
  CHECK_WIDTHS,
  expectAccessible,
  expectPageFits,
  saveFailureScreenshot,
  withFailureScreenshot,
} from '../helpers/page-checks.js';
import { startTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const OPERATOR = 'trust-e2e-operator@roomstage.example';

describe.skipIf(skipReason !== null)(`Dashboard trust pages${skipReason ? ` [skipped: ${skipReason}]` : ''}`, () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { ...(await browserServerEnv()), OPERATOR_EMAILS: OPERATOR } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await server?.dropDatabase();
  });

  /** A page signed in with `token`'s session cookie. */
  async function signedInPage(token: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { hostname } = new URL(server.url);
    await context.addCookies([{ name: SESSION_COOKIE_NAME, value: token, domain: hostname, path: '/' }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  it('A member of a suspended account sees the “suspended” page (403) with the switcher and sign-out, and leaves it', {
    timeout: 120_000,
  }, async () => {
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const member = await signUp(server.api);
    await server.api.post('/api/v1/members/invites', {
      token: owner.token,
      json: { email: member.email, role: 'admin' },
    });
    const invite = await tokenFromOutbox(server, member.email, 'invite');
    await server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token: invite } });
    await server.api.post('/api/v1/accounts/current', { token: member.token, json: { account_id: owner.userId } });
    const operator = await operatorToken(server, OPERATOR);
    await server.api.post(`/api/v1/admin/accounts/${owner.userId}/suspend`, {
      token: operator,
      json: { reason: 'fraud' },
    });

    const page = await signedInPage(member.token);
    await withFailureScreenshot(page, 'trust-suspended', async () => {
      const response = await page.goto(`${server.url}/keys`);
      expect(response?.status()).toBe(403);
      await page.getByRole('heading', { name: 'This account is suspended', level: 1 }).waitFor();
      await expectAccessible(page, 'account-suspended');
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await saveFailureScreenshot(page, `review-account-suspended-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      // The way out: the account switcher in the header takes the member back to their own account.
      await page.locator('summary', { hasText: 'Account menu for ' }).click();
      await page.locator('.account-switcher button:not([disabled])').first().click();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      const keys = await page.goto(`${server.url}/keys`);
      expect(keys?.status()).toBe(200);
    });
  });

  it('An owner sees how many working keys a member created and removes the member with their keys', {
    timeout: 120_000,
  }, async () => {
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const developer = await signUp(server.api);
    await server.api.post('/api/v1/members/invites', {
      token: owner.token,
      json: { email: developer.email, role: 'developer' },
    });
    const invite = await tokenFromOutbox(server, developer.email, 'invite');
    await server.api.post('/api/v1/members/invites/accept', { token: developer.token, json: { token: invite } });
    const made = await server.api.post('/api/v1/keys', {
      token: developer.token,
      headers: { 'roomstage-account': owner.userId },
      json: { name: 'Developer key' },
    });
    const page = await signedInPage(owner.token);
    await withFailureScreenshot(page, 'trust-team-keys', async () => {
      await page.goto(`${server.url}/team`);
      await page.getByText('Created 1 API key that still works').waitFor();
      await expectPageFits(page, 'team-member-keys');
      await expectAccessible(page, 'team-member-keys');
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await saveFailureScreenshot(page, `review-team-keys-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(await page.getByLabel(/Also revoke their 1 key/).isChecked()).toBe(true);
      await page.getByRole('button', { name: `Remove ${developer.email}` }).click();
      await page.getByText('1 API key they created revoked.').waitFor();
    });
    expect((await server.api.get('/api/v1/credits', { token: made.body.key })).status).toBe(401);
  });

  it('Keys show who created them, a revoked prefix keeps its contrast, and the audit log fits its card', {
    timeout: 180_000,
  }, async () => {
    const account = await busyAccount(server);
    const revoked = await createKey(server.api, account.token, { name: 'Old key' });
    await server.api.delete(`/api/v1/keys/${revoked.id}`, { token: account.token });
    const page = await signedInPage(account.token);
    await withFailureScreenshot(page, 'trust-keys-audit', async () => {
      await page.goto(`${server.url}/keys`);
      await page.getByText(`by ${account.email}`).first().waitFor();
      await expectPageFits(page, 'keys');
      await expectAccessible(page, 'keys');
      await saveFailureScreenshot(page, 'review-keys-1280');

      await page.goto(`${server.url}/audit-log`);
      await page.getByRole('heading', { name: 'Latest entries' }).waitFor();
      await expectPageFits(page, 'audit-log');
      // At 1280 px the table fits the card without scrolling; at 390 px it may scroll inside the card.
      const overflow = await page.evaluate(() => {
        const table = document.querySelector('table');
        const card = table?.closest('.card');
        return table && card ? table.getBoundingClientRect().width - card.getBoundingClientRect().width : null;
      });
      expect(overflow).not.toBeNull();
      expect(overflow!).toBeLessThanOrEqual(0);
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await saveFailureScreenshot(page, `review-audit-log-${width}`);
      }
    });
  });
});

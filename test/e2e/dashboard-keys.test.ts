import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../fixtures/api-client.js';
import { browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const POLL = { timeout: 10_000, interval: 100 };

describe.skipIf(skipReason !== null)(`Dashboard in a browser${skipReason ? ` [skipped: ${skipReason}]` : ''}`, () => {
  const server = useTestServer('sqlite');
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function signUp(email: string) {
    page = await browser.newPage();
    page.setDefaultTimeout(5_000);
    await page.goto(`${server.url}/signup`);
    await submitCredentials(page, email);
    await page.goto(`${server.url}/keys`);
  }

  it('Visitors are sent to sign in before they can see API keys', async () => {
    const visitor = await browser.newPage();
    await visitor.goto(`${server.url}/keys`);
    expect(new URL(visitor.url()).pathname).toBe('/login');
    expect(new URL(visitor.url()).searchParams.get('redirectTo')).toBe('/keys');
    await visitor.close();
  });

  it('A staging company signs up, creates a key that is shown once, and it works against the API', async () => {
    await signUp(uniqueEmail('studio'));
    await page.getByLabel('Name').fill('Production server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByLabel('Secret key');
    await expect.poll(() => secret.inputValue(), POLL).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    const key = await secret.inputValue();
    await expect.poll(() => page.getByText('10 free credits added').count(), POLL).toBe(1);

    const credits = await server.api.get('/api/v1/credits', { token: key });
    expect(credits.body.credits).toBe(10);

    await page.reload();
    expect(await page.getByLabel('Secret key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await page.getByText('Production server').count()).toBeGreaterThan(0);
  });

  it('A staging company revokes a key after confirming, and the API rejects it at once', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('Secret key').inputValue();
    const row = page.getByRole('row').filter({ hasText: key.slice(0, 12) });
    await row.locator('summary', { hasText: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Confirm revoke' }).click();
    await expect.poll(() => row.getByText('revoked', { exact: true }).count(), POLL).toBe(1);
    await expect.poll(async () => (await server.api.get('/api/v1/credits', { token: key })).status, POLL).toBe(401);
  });

  it('A signed-in user signs out from the account menu and the keys page asks to sign in again', async () => {
    await page.locator('summary', { hasText: 'Account menu for ' }).click();
    await page.getByRole('button', { name: /sign out/i }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto(`${server.url}/keys`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });
});

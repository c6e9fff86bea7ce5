import { authenticator } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, signUp, TEST_PASSWORD } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium } from '../helpers/browser.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { expectAccessible, expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const NEW_PASSWORD = 'a freshly chosen passphrase';
const PHONE_AGENT = 'RoomstagePhone/2.1 (test handset)';

describe.skipIf(skipReason !== null)(
  `The Security and Audit log pages${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useTestServer('sqlite', async () => ({ env: await browserServerEnv() }));
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    const codeNow = (secret: string) => authenticator.clone({ epoch: server.clock.now() }).generate(secret);

    async function newPage(): Promise<Page> {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(15_000);
      return page;
    }

    async function openFromAccountMenu(page: Page, name: string) {
      await page.locator('summary', { hasText: 'Account menu for ' }).click();
      await page.locator('.account-menu').getByRole('link', { name, exact: true }).click();
    }

    it('A user changes the password, turns on two-factor sign-in, signs in with a code, ends another session and finds it all in the audit log', {
      timeout: 180_000,
    }, async () => {
      server.clock.advanceTo(startOfNextMinute(server.clock));
      const user = await signUp(server.api);
      const page = await newPage();
      await withFailureScreenshot(page, 'security-pages', async () => {
        await page.goto(`${server.url}/login`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/overview');
        await openFromAccountMenu(page, 'Security');
        await page.waitForURL('**/security');

        // A wrong current password is named next to its field, in a sentence.
        const passwordCard = page.locator('section', { has: page.getByRole('heading', { name: 'Password' }) });
        await passwordCard.getByLabel('Current password').fill('not my password');
        await passwordCard.getByLabel('New password').fill(NEW_PASSWORD);
        await passwordCard.getByRole('button', { name: 'Change password' }).click();
        await passwordCard.getByText('The current password is not correct.').waitFor();
        await passwordCard.getByLabel('Current password').fill(TEST_PASSWORD);
        await passwordCard.getByLabel('New password').fill(NEW_PASSWORD);
        await passwordCard.getByRole('button', { name: 'Change password' }).click();
        await passwordCard.getByText('Every other session was signed out; this one stays signed in.').waitFor();
        expect(await passwordCard.getByLabel('New password').inputValue()).toBe('');
        // The session of the sign-up (the API's) ended; this browser's did not.
        expect((await server.api.get('/api/v1/me', { token: user.token })).status).toBe(401);

        // Setup shows the server's QR code and the secret; a mistyped code keeps both on the page.
        await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
        await page.getByRole('img', { name: /QR code of your two-factor secret/ }).waitFor();
        expect(await page.locator('.qr-code svg').count()).toBe(1);
        const secret = await page.getByLabel('Secret key').inputValue();
        expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
        await expectPageFits(page, 'security-two-factor-setup');
        await expectAccessible(page, 'security-two-factor-setup');
        await page.getByLabel('Code from the app').fill('000000');
        await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
        await page.getByText('The code is not correct. Enter the current 6-digit code of your app.').waitFor();
        expect(await page.getByLabel('Secret key').inputValue()).toBe(secret);
        await page.getByLabel('Code from the app').fill(codeNow(secret));
        await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();

        // The ten recovery codes, once: listed, to copy and to download.
        const panel = page.getByRole('region', { name: 'Your recovery codes' });
        await panel.waitFor();
        const codes = (await panel.locator('li code').allTextContents()).map((code) => code.trim());
        expect(codes).toHaveLength(10);
        expect(new Set(codes).size).toBe(10);
        expect(await panel.getByLabel('All codes, to copy').inputValue()).toBe(codes.join('\n'));
        expect(await panel.getByRole('button', { name: 'Copy codes' }).count()).toBe(1);
        const download = page.waitForEvent('download');
        await panel.getByRole('link', { name: 'Download the codes (.txt)' }).click();
        const saved = await (await download).path();
        const { readFile } = await import('node:fs/promises');
        const savedText = await readFile(saved, 'utf8');
        for (const code of codes) expect(savedText).toContain(code);
        await page.getByText('10 of 10 recovery codes are unused.').waitFor();
        await expectPageFits(page, 'security-recovery-codes');
        await expectAccessible(page, 'security-recovery-codes');
        await page.reload();
        expect(await page.getByRole('region', { name: 'Your recovery codes' }).count()).toBe(0);

        // Sign out, then in again: now with a code from the app.
        await page.locator('summary', { hasText: 'Account menu for ' }).click();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL((url) => !url.pathname.startsWith('/security'));
        server.clock.advance(30_000);
        await page.goto(`${server.url}/login?redirectTo=%2Fsecurity`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByLabel('Authentication code').fill(codeNow(secret));
        await page.getByLabel('Password').fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/security');

        // A phone signs in too (a fresh minute and code); the table shows it beside this browser, which is marked.
        server.clock.advance(60_000);
        const phone = await server.api.post('/api/v1/auth/login', {
          json: { email: user.email, password: NEW_PASSWORD, otp: codeNow(secret) },
          headers: { 'user-agent': PHONE_AGENT },
        });
        expect(phone.status, phone.text).toBe(200);
        await page.reload();
        const sessions = page.locator('section', { has: page.getByRole('heading', { name: 'Active sessions' }) });
        await sessions.getByRole('cell', { name: PHONE_AGENT }).waitFor();
        expect(await sessions.locator('tbody tr').count()).toBe(2);
        expect(await sessions.locator('tbody tr', { hasText: 'This session' }).count()).toBe(1);
        expect(await sessions.locator('tbody tr', { hasText: 'This session' }).textContent()).not.toContain(
          PHONE_AGENT,
        );
        await expectPageFits(page, 'security-sessions');
        await sessions.getByRole('button', { name: 'Sign out everywhere else' }).click();
        await sessions.getByText('Signed out one other session.').waitFor();
        // Remix may show the action's message a moment before the revalidated list: wait for the list, not a moment.
        await expect.poll(() => sessions.locator('tbody tr').count()).toBe(1);
        expect((await server.api.get('/api/v1/me', { token: phone.body.token })).status).toBe(401);

        // The audit log has it all; the filters narrow it to one action, or to an actor.
        await openFromAccountMenu(page, 'Audit log');
        await page.waitForURL('**/audit-log');
        const table = page.locator('table');
        for (const action of ['user.password_changed', 'user.2fa_enabled', 'user.signed_in', 'user.sign_in_failed'])
          await table.getByText(action, { exact: true }).first().waitFor();
        await page.getByLabel('Action').selectOption({ label: 'Two-factor sign-in turned on' });
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL('**/audit-log?action=user.2fa_enabled*');
        // The client router changes the URL before it renders the page it loaded: poll the rows, not the URL.
        const rows = table.locator('tbody tr');
        await expect.poll(() => rows.count()).toBe(1);
        expect(await rows.first().textContent()).toContain(user.email);
        await page.getByRole('link', { name: 'Clear filters' }).click();
        await page.waitForURL((url) => url.pathname === '/audit-log' && url.search === '');
        await page.getByLabel('Actor').fill('nobody@example.com');
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.getByText('No entries match these filters.').waitFor();
        await page.getByLabel('Actor').fill(user.email);
        await page.getByLabel('Action').selectOption({ label: 'Password changed' });
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL('**/audit-log?action=user.password_changed*');
        await expect.poll(() => rows.first().textContent()).toContain('sessions ended: 1');
        expect(await rows.count()).toBe(1);
        await expectPageFits(page, 'audit-log');
      });
      await page.context().close();
    });

    it('Without JavaScript, a person sets up two-factor sign-in, gets the recovery codes and pages through the audit log', {
      timeout: 60_000,
    }, async () => {
      server.clock.advanceTo(startOfNextMinute(server.clock));
      const user = await signUp(server.api);
      const started = await dashboardPage(server.url, '/security', user.token, { intent: 'set-up-2fa' });
      expect(started.status).toBe(200);
      expect(started.html).toContain('<svg');
      const secret = /id="two-factor-secret"[^>]*value="([A-Z2-7]+)"/.exec(started.html)?.[1];
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      const wrong = await dashboardPage(server.url, '/security', user.token, { intent: 'enable-2fa', code: '000000' });
      expect(wrong.status).toBe(400);
      expect(wrong.html).toContain('The code is not correct.');
      expect(wrong.html).toContain(`value="${secret}"`);
      const enabled = await dashboardPage(server.url, '/security', user.token, {
        intent: 'enable-2fa',
        code: codeNow(secret as string),
      });
      expect(enabled.status).toBe(200);
      expect(enabled.html.match(/<li><code>[a-z0-9]{5}-[a-z0-9]{5}<\/code><\/li>/g)).toHaveLength(10);
      expect(enabled.html).toContain('download="roomstage-recovery-codes.txt"');

      // 30 keys make two pages of entries; "Older" keeps the filter.
      for (let i = 0; i < 30; i++) await createKey(server.api, user.token, { name: `key ${i}` });
      const first = await dashboardPage(server.url, '/audit-log?action=key.created', user.token);
      expect(first.status).toBe(200);
      expect(first.html.match(/<tr><td data-label="Time \(UTC\)">/g)).toHaveLength(25);
      const older = /href="(\/audit-log\?action=key.created&amp;starting_after=[^"]+)"/.exec(first.html)?.[1];
      expect(older).toBeDefined();
      const second = await dashboardPage(server.url, (older as string).replace(/&amp;/g, '&'), user.token);
      expect(second.html.match(/<tr><td data-label="Time \(UTC\)">/g)).toHaveLength(5);
      expect(second.html).not.toContain('Older →');
      expect(second.html).toContain('← Newest');
    });
  },
);

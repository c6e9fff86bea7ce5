import { authenticator } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { outboxFor, tokenFromOutbox } from '../fixtures/mail.js';
import { expectAccessible, expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const NEW_PASSWORD = 'a brand new passphrase';

describe.skipIf(skipReason !== null)(
  `Account security in the dashboard${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useTestServer('sqlite', async () => ({ env: await browserServerEnv() }));
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function newPage(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return page;
    }

    /** The link of the newest e-mail of that kind to `email`, as the person would click it. */
    async function linkFromOutbox(email: string, kind: string): Promise<string> {
      // Waits as tokenFromOutbox does: a password-reset link is written just after the request is answered.
      await tokenFromOutbox(server, email, kind);
      const link = (await outboxFor(server, email, kind)).at(-1)?.link;
      if (!link) throw new Error(`no ${kind} e-mail to ${email}`);
      return link;
    }

    it('A new user confirms the e-mail from the link and can then buy credits', { timeout: 90_000 }, async () => {
      const page = await newPage();
      await withFailureScreenshot(page, 'account-security-verify-email', async () => {
        const email = uniqueEmail('newbuyer');
        await page.goto(`${server.url}/signup`);
        await submitCredentials(page, email);

        // Before confirming, checkout is refused and the page offers a new link.
        await page.goto(`${server.url}/billing`);
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        const notice = page.getByRole('status').filter({ hasText: 'Confirm your e-mail address first' });
        await notice.waitFor();
        expect(await notice.getByText(email).count()).toBe(1);
        await expectPageFits(page, 'billing-email-unverified');
        await expectAccessible(page, 'billing-email-unverified');
        const firstLink = await linkFromOutbox(email, 'verify_email');
        await notice.getByRole('button', { name: 'Send the confirmation e-mail again' }).click();
        await page.getByText('We sent a new confirmation link.').waitFor();
        const link = await linkFromOutbox(email, 'verify_email');
        expect(link).not.toBe(firstLink);

        // The first link was replaced by the new one: it says so instead of confirming.
        await page.goto(firstLink);
        await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: /invalid, used or expired/ })
          .waitFor();

        await page.goto(link);
        await expectPageFits(page, 'verify-email');
        await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
        await page.getByText(`Thank you: ${email} is confirmed.`).waitFor();
        await page.getByRole('link', { name: 'Go to billing' }).click();
        await page.waitForURL('**/billing');

        await page.getByRole('radio', { name: '10 credits ($10)' }).check();
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        await page.waitForURL('**/billing/simulated-checkout/*');
        expect(await page.getByRole('heading', { name: '10 credits added' }).count()).toBe(1);
      });
      await page.context().close();
    });

    it('A user who forgot the password resets it from the e-mail', { timeout: 90_000 }, async () => {
      const user = await signUp(server.api);
      const page = await newPage();
      await withFailureScreenshot(page, 'account-security-reset-password', async () => {
        await page.goto(`${server.url}/login`);
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.waitForURL('**/forgot-password');
        await expectPageFits(page, 'forgot-password');

        // An address without an account gets the same answer, and no e-mail.
        const stranger = uniqueEmail('stranger');
        await page.getByLabel('E-mail').fill(stranger);
        await page.getByRole('button', { name: 'Send the reset link' }).click();
        await page.getByText(`If ${stranger} has an account, we sent it a link`).waitFor();
        expect(await outboxFor(server, stranger)).toEqual([]);

        await page.goto(`${server.url}/forgot-password`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByRole('button', { name: 'Send the reset link' }).click();
        await page.getByText(`If ${user.email} has an account, we sent it a link`).waitFor();

        const link = await linkFromOutbox(user.email, 'password_reset');
        await page.goto(link);
        await expectPageFits(page, 'reset-password');
        await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Save the new password' }).click();
        await page.getByText('Your password is changed.').waitFor();
        // The old session ended with the reset.
        expect((await server.api.get('/api/v1/me', { token: user.token })).status).toBe(401);

        // The link works once.
        await page.goto(link);
        await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
        await page.getByRole('button', { name: 'Save the new password' }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: /invalid, used or expired/ })
          .waitFor();
        await page.getByRole('link', { name: 'Send me a new reset link' }).waitFor();

        await page.goto(`${server.url}/login`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/overview');
      });
      await page.context().close();
    });

    it('A user turns on two-factor sign-in and signs in with a code, or with a recovery code', {
      timeout: 90_000,
    }, async () => {
      const user = await signUp(server.api);
      const codeNow = (secret: string) => authenticator.clone({ epoch: server.clock.now() }).generate(secret);
      const { secret } = (await server.api.post('/api/v1/me/2fa/setup', { token: user.token })).body;
      const enabled = await server.api.post('/api/v1/me/2fa/enable', {
        token: user.token,
        json: { code: codeNow(secret) },
      });
      expect(enabled.status).toBe(200);
      const recoveryCode: string = enabled.body.recovery_codes[0];

      const page = await newPage();
      await withFailureScreenshot(page, 'account-security-two-factor', async () => {
        await page.goto(`${server.url}/login`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        // Asking for the second factor is a step, not an error: a status note, never a red alert box.
        await page.getByRole('status').filter({ hasText: 'Two-factor sign-in is on for this account' }).waitFor();
        expect(await page.locator('.alert--error').count()).toBe(0);
        expect(await page.getByLabel('E-mail').inputValue()).toBe(user.email);
        // Without JavaScript the page comes back from the server: with the code field, and never with the password.
        const plain = await dashboardPage(server.url, '/login', '', { email: user.email, password: TEST_PASSWORD });
        expect(plain.status).toBe(401);
        expect(plain.html).toContain('name="code"');
        expect(plain.html).toContain(`value="${user.email}"`);
        expect(plain.html).not.toContain(TEST_PASSWORD);
        await expectPageFits(page, 'login-two-factor');
        await expectAccessible(page, 'login-two-factor');

        // A wrong code fails like a wrong password, and the code field stays.
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByLabel('Authentication code').fill('000000');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').filter({ hasNotText: 'Two-factor' }).waitFor();
        expect(await page.getByLabel('Authentication code').count()).toBe(1);

        // The code that turned it on was spent; the next 30-second code signs in.
        server.clock.advance(30_000);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByLabel('Authentication code').fill(codeNow(secret));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/overview');
        await page.context().clearCookies();

        // A fresh minute, so the per-minute budget of codes is not what refuses the recovery code.
        server.clock.advance(60_000);

        await page.goto(`${server.url}/login`);
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByLabel('Authentication code').fill(recoveryCode);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/overview');
      });
      await page.context().close();
    });

    it('Without JavaScript, a person confirms the address, asks for a new link from billing and resets the password', {
      timeout: 90_000,
    }, async () => {
      const user = await signUp(server.api);
      const refused = await dashboardPage(server.url, '/billing', user.token, { intent: 'buy', credits: '10' });
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('Send the confirmation e-mail again');
      const firstToken = await tokenFromOutbox(server, user.email, 'verify_email');
      const resent = await dashboardPage(server.url, '/billing', user.token, { intent: 'resend-verification' });
      expect(resent.status).toBe(200);
      expect(resent.html).toContain('We sent a new confirmation link.');
      const token = await tokenFromOutbox(server, user.email, 'verify_email');
      expect(token).not.toBe(firstToken);
      // Advertising funds need the same confirmation, and their page offers the same button.
      const refusedFunds = await dashboardPage(server.url, '/ads/funds', user.token, { intent: 'buy', amount: '50' });
      expect(refusedFunds.status).toBe(403);
      expect(refusedFunds.html).toContain('Send the confirmation e-mail again');

      const page = await dashboardPage(server.url, `/verify-email?token=${token}`, '');
      expect(page.html).toContain('Confirm my e-mail address');
      const stale = await dashboardPage(server.url, '/verify-email', '', { token: firstToken });
      expect(stale.status).toBe(400);
      expect(stale.html).toMatch(/invalid, used or expired/);
      // Signed out, the link confirms only with the account's password: the page asks for it.
      const withoutPassword = await dashboardPage(server.url, '/verify-email', '', { token });
      expect(withoutPassword.status).toBe(401);
      expect(withoutPassword.html).toContain('Enter the password of the account this link is for.');
      const wrongPassword = await dashboardPage(server.url, '/verify-email', '', { token, password: 'not it at all' });
      expect(wrongPassword.status).toBe(401);
      expect(wrongPassword.html).toContain('That is not the password of the account this link is for.');
      const confirmed = await dashboardPage(server.url, '/verify-email', '', { token, password: TEST_PASSWORD });
      expect(confirmed.status).toBe(200);
      expect(confirmed.html).toContain(`<strong>${user.email}</strong> is confirmed`);
      expect(confirmed.html).toContain('href="/login?redirectTo=%2Fbilling"');

      const asked = await dashboardPage(server.url, '/forgot-password', '', { email: user.email });
      expect(asked.html).toContain('has an account, we sent it a link');
      const resetToken = await tokenFromOutbox(server, user.email, 'password_reset');
      const tooShort = await dashboardPage(server.url, '/reset-password', '', { token: resetToken, password: 'short' });
      expect(tooShort.status).toBe(400);
      expect(tooShort.html).toContain('name="password"');
      const reset = await dashboardPage(server.url, '/reset-password', '', {
        token: resetToken,
        password: NEW_PASSWORD,
      });
      expect(reset.status).toBe(200);
      expect(reset.html).toContain('Your password is changed.');
      expect(
        (await server.api.post('/api/v1/auth/login', { json: { email: user.email, password: NEW_PASSWORD } })).status,
      ).toBe(200);
    });
  },
);

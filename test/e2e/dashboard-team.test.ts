import { authenticator } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { signUp, TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { confirmEmail, startSmtpServer } from '../fixtures/mail.js';
import { expectAccessible, expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();

describe.skipIf(skipReason !== null)(`Teams in the dashboard${skipReason ? ` [skipped: ${skipReason}]` : ''}`, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    browser = await launchChromium();
  });
  const server = useTestServer('sqlite', async () => ({ env: { ...(await browserServerEnv()), SMTP_URL: smtp.url } }));
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
  });

  const codeNow = (secret: string) => authenticator.clone({ epoch: server.clock.now() }).generate(secret);

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  async function openAccountMenu(page: Page) {
    await page.locator('summary', { hasText: 'Account menu for ' }).click();
  }

  async function openFromAccountMenu(page: Page, name: string) {
    await openAccountMenu(page);
    await page.locator('.account-menu').getByRole('link', { name, exact: true }).click();
  }

  /** The account the header says this page acts on: the switcher's current button (in the closed menu too). */
  const currentAccount = (page: Page) =>
    page.locator('.account-switcher button[aria-current="true"]').first().textContent({ timeout: 1_000 });

  /** The identity token this browser signs in with: its session cookie. */
  async function sessionTokenOf(page: Page): Promise<string> {
    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE_NAME);
    if (!cookie) throw new Error('no session cookie in the browser');
    return cookie.value;
  }

  /** A studio owner whose address is confirmed (inviting needs it), signed in in a browser of their own. */
  async function ownerSignedIn() {
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const page = await newPage();
    await page.goto(`${server.url}/login`);
    await submitCredentials(page, owner.email);
    return { owner, page };
  }

  /** The owner invites `email` from the Team page; answers the link of the e-mail that reached the SMTP server. */
  async function inviteFromTeamPage(page: Page, email: string, role: string): Promise<string> {
    await openFromAccountMenu(page, 'Team');
    await page.waitForURL('**/team');
    const inviteCard = page.locator('section', { has: page.getByRole('heading', { name: 'Invite someone' }) });
    await inviteCard.getByLabel('E-mail address').fill(email);
    await inviteCard.getByLabel('Role', { exact: true }).selectOption(role);
    await inviteCard.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${email}: the link works for 7 days.`).waitFor();
    const invitations = page.locator('section', { has: page.getByRole('heading', { name: 'Open invitations' }) });
    await expect.poll(() => invitations.locator('tbody tr', { hasText: email }).count()).toBe(1);
    const mail = await smtp.waitFor(email, /invited you/);
    const link = /https?:\/\/\S+\/invite\?token=\S+/.exec(mail.parsed.text ?? '')?.[0];
    if (!link) throw new Error(`no invite link in the e-mail to ${email}`);
    expect(link.startsWith(`${server.url}/invite?token=`)).toBe(true);
    return link;
  }

  /** A newcomer opens the invite link, creates their account from it, and joins with one click. */
  async function joinFromInviteLink(link: string, email: string): Promise<Page> {
    const page = await newPage();
    await page.goto(link);
    await page.waitForURL('**/login?*');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL('**/signup?*');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/invite?token=*');
    await page.getByRole('button', { name: 'Join the account' }).click();
    await page.getByText('You joined').waitFor();
    return page;
  }

  it('A studio owner invites a developer, who creates a key but cannot buy credits', { timeout: 180_000 }, async () => {
    const { owner, page: ownerPage } = await ownerSignedIn();
    const developerEmail = uniqueEmail('developer');
    const link = await withFailureScreenshot(ownerPage, 'team-invite', async () => {
      const sent = await inviteFromTeamPage(ownerPage, developerEmail, 'developer');
      await expectPageFits(ownerPage, 'team');
      await expectAccessible(ownerPage, 'team');
      return sent;
    });
    await ownerPage.context().close();

    const page = await joinFromInviteLink(link, developerEmail);
    await withFailureScreenshot(page, 'team-developer', async () => {
      await page.getByText(`You joined ${owner.email} as developer`).waitFor();
      await expectAccessible(page, 'invite-joined');
      await page.getByRole('link', { name: 'Continue' }).click();
      await page.waitForURL('**/overview');
      await expect.poll(() => currentAccount(page).catch(() => null)).toContain(owner.email);

      // The account switcher goes to the developer's own account and back to the studio's.
      await openAccountMenu(page);
      await page.getByRole('button', { name: `${developerEmail} (owner)` }).click();
      await expect.poll(() => currentAccount(page).catch(() => null)).toContain(developerEmail);
      await openAccountMenu(page);
      await page.getByRole('button', { name: `${owner.email} (developer)` }).click();
      await expect.poll(() => currentAccount(page).catch(() => null)).toContain(owner.email);

      // A key of the studio's account: shown once, and it works against the API.
      await openFromAccountMenu(page, 'Settings → API');
      await page.waitForURL('**/keys');
      await page.getByLabel('Name').fill('Developer laptop');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('Secret key').inputValue();
      expect(key).toMatch(/^sk_(live|test)_/);
      const credits = await server.api.get('/api/v1/credits', { token: key });
      expect(credits.status).toBe(200);
      const ownerKeys = await server.api.get('/api/v1/keys', { token: owner.token });
      expect(ownerKeys.body.keys.map((k: { name: string }) => k.name)).toContain('Developer laptop');

      // Billing: the balance, but no buying; the API's checkout says why with the roles that may.
      await page.goto(`${server.url}/billing`);
      await page
        .getByText('Your role in this account (developer) may not buy credits: it needs owner, admin or billing.')
        .waitFor();
      expect(await page.getByRole('button', { name: 'Continue to payment' }).count()).toBe(0);
      await expectAccessible(page, 'billing-developer');
      const checkout = await server.api.post('/api/v1/billing/checkout', {
        token: await sessionTokenOf(page),
        json: { credits: 10 },
      });
      expect(checkout.status).toBe(403);
      expect(checkout.body).toEqual({
        error: 'forbidden',
        code: 'forbidden',
        message: expect.stringContaining('(developer)'),
        required_roles: ['owner', 'admin', 'billing'],
      });
    });
    await page.context().close();
  });

  it('A studio that requires two-factor sign-in sends a new member to set it up first, then lets them in', {
    timeout: 180_000,
  }, async () => {
    server.clock.advanceTo(startOfNextMinute(server.clock));
    const { owner, page: ownerPage } = await ownerSignedIn();
    const memberEmail = uniqueEmail('viewer');
    const link = await withFailureScreenshot(ownerPage, 'team-require-2fa', async () => {
      // Requiring it without two-factor sign-in of one's own is refused with the reason.
      await openFromAccountMenu(ownerPage, 'Team');
      await ownerPage.waitForURL('**/team');
      const requirement = ownerPage.locator('section', {
        has: ownerPage.getByRole('heading', { name: 'Two-factor sign-in' }),
      });
      await requirement.getByRole('button', { name: 'Require two-factor sign-in' }).click();
      await ownerPage.getByText('Turn on two-factor sign-in for yourself first').waitFor();
      const setup = await server.api.post('/api/v1/me/2fa/setup', { token: owner.token });
      await server.api.post('/api/v1/me/2fa/enable', {
        token: owner.token,
        json: { code: codeNow(setup.body.secret) },
      });
      await requirement.getByRole('button', { name: 'Require two-factor sign-in' }).click();
      await ownerPage.getByText('Two-factor sign-in is now required').waitFor();
      await requirement.getByRole('button', { name: 'Stop requiring two-factor sign-in' }).waitFor();
      return inviteFromTeamPage(ownerPage, memberEmail, 'viewer');
    });
    await ownerPage.context().close();

    const page = await joinFromInviteLink(link, memberEmail);
    await withFailureScreenshot(page, 'team-member-2fa', async () => {
      await page.getByRole('link', { name: 'Continue' }).click();
      // Every page of the studio's account sends them to Security, which says why.
      await page.waitForURL('**/security?two_factor=required');
      const banner = page.getByText(`${owner.email} requires two-factor sign-in of its members, and yours is off.`);
      await banner.waitFor();
      await expectAccessible(page, 'security-two-factor-required');
      await page.goto(`${server.url}/keys`);
      await page.waitForURL('**/security?two_factor=required');
      await banner.waitFor();

      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      const secret = await page.getByLabel('Secret key').inputValue();
      server.clock.advance(30_000);
      await page.getByLabel('Code from the app').fill(codeNow(secret));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.getByRole('region', { name: 'Your recovery codes' }).waitFor();
      await page.getByText(`you can work in ${owner.email} again`).waitFor();
      await page.getByRole('link', { name: 'Go to the overview' }).click();
      await page.waitForURL('**/overview');
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/overview');
    });
    await page.context().close();
  });
});

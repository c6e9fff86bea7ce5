import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TEST_PASSWORD } from '../fixtures/api-client.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Why browser tests are not running, or null when they run. Under CI they always run (and fail without Chromium). */
export function browserSkipReason(): string | null {
  if (existsSync(CHROMIUM_PATH) || IN_CI) return null;
  return `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install chromium)`;
}

/** Debian's Chromium, headless, with the flags that keep it off the network this machine does not have. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A port nobody listens on right now, so a test server's PUBLIC_BASE_URL can name it before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Server settings for browser tests: image URLs point at the server itself, so pages show and download them. */
export async function browserServerEnv(): Promise<Record<string, string>> {
  const port = await freePort();
  return { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
}

/** Fills the e-mail and password of /signup or /login (one CredentialsForm) with TEST_PASSWORD, submits, and waits for the overview. */
export async function submitCredentials(page: Page, email: string, secondFactor?: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: /^(create account|sign in)$/i }).click();
  if (secondFactor !== undefined) {
    // Two-factor sign-in on: the form comes back asking for the code, with the password to type again.
    await page.getByLabel('Authentication code').fill(secondFactor);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: /^sign in$/i }).click();
  }
  await page.waitForURL('**/overview');
  // The address bar can change a moment before the overview renders (a client-side navigation): wait until the
  // sign-in or sign-up form is gone.
  await page.locator('#login-title, #signup-title').waitFor({ state: 'detached' });
}

import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

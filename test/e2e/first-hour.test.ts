import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, signUp, uniqueEmail } from '../fixtures/api-client.js';
import { browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { roomJpeg } from '../fixtures/images.js';
import { CHECK_WIDTHS, expectPageFits, withFailureScreenshot } from '../helpers/page-checks.js';
import { startImagingServer } from '../helpers/staging.js';

const skipReason = browserSkipReason();

/** What a new staging company, agent or brand meets in its first hour, at 1280 and 390 px. */
describe.skipIf(skipReason !== null)(
  `The first hour in a browser${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    let server: Awaited<ReturnType<typeof startImagingServer>>;
    let browser: Browser;

    beforeAll(async () => {
      server = await startImagingServer('sqlite');
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await server?.dropDatabase();
    });

    async function signedIn(email: string): Promise<Page> {
      const page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${server.url}/login`);
      await submitCredentials(page, email);
      return page;
    }

    const text = async (page: Page) => ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');

    it('A brand-new account is told how to start, not that it is out of credits', async () => {
      const page = await browser.newPage();
      await withFailureScreenshot(page, 'first-hour-new', async () => {
        await page.goto(`${server.url}/signup`);
        await submitCredentials(page, uniqueEmail('new'));
        const main = await text(page);
        expect(main).toContain('Welcome to Roomstage');
        expect(main).toMatch(/first key comes with\s+10 free credits/);
        expect(main).toContain('Redeem a code');
        expect(main).not.toMatch(/No credits left|402/);
        await expectPageFits(page, 'overview-new');
      });
    });

    it('An agent sees their claims and earnings first, and no credits, keys or engine', async () => {
      const studio = await signUp(server.api);
      const key = await createKey(server.api, studio.token);
      const staged = await server.api.post('/api/v1/stage', {
        token: key.key,
        json: { image: (await roomJpeg(400, 300)).toString('base64') },
      });
      expect(staged.status, staged.text).toBe(200);
      const agent = await signUp(server.api);
      const redeemed = await server.api.post('/api/v1/claim', {
        token: agent.token,
        json: { code: staged.body.claim_code },
      });
      expect(redeemed.status, redeemed.text).toBe(200);
      const page = await signedIn(agent.email);
      await withFailureScreenshot(page, 'first-hour-agent', async () => {
        const headings = await page.locator('main h2').allInnerTexts();
        expect(headings[0]).toBe('Your claims');
        const main = await text(page);
        expect(main).toContain(staged.body.claim_code);
        expect(main).toContain('Ad earnings to pay out');
        expect(main).not.toMatch(/No credits left|Staging engine|API keys/);
        await expectPageFits(page, 'overview-agent');
      });
    });

    it('A staging company stages twice in the playground and its key shows the use everywhere', async () => {
      const email = uniqueEmail('playground');
      const account = await signUp(server.api, email);
      const key = await createKey(server.api, account.token, { name: 'My first key' });
      const page = await signedIn(email);
      await withFailureScreenshot(page, 'first-hour-playground', async () => {
        // The menu says where keys live, in the spec's words: Settings, then API.
        const nav = page.getByRole('navigation', { name: 'Main', exact: true });
        expect(await nav.getByRole('link', { name: 'API', exact: true }).getAttribute('href')).toBe('/keys');
        expect(await nav.locator('.nav-group__label', { hasText: 'Settings' }).count()).toBe(1);

        await page.goto(`${server.url}/playground`);
        await page.getByLabel('Variations').selectOption('2');
        expect((await page.locator('.page-header .lead').textContent())?.replace(/\s+/g, ' ')).toMatch(
          /spends 2 credits/,
        );
        // A select shows its whole label: the key's name and prefix are not cut off.
        const select = page.locator('#field-key_id');
        expect(await select.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
        for (let run = 0; run < 2; run++) {
          await page.getByLabel('Variations').selectOption('1');
          await page.getByRole('button', { name: 'Stage photo' }).click();
          await page.getByText('Claim code', { exact: false }).first().waitFor();
          await page.locator('.alert--success').waitFor();
        }
        await expect
          .poll(async () => {
            await page.goto(`${server.url}/keys`);
            return text(page);
          })
          .not.toMatch(/never/i);
        await page.goto(`${server.url}/overview`);
        expect(await text(page)).not.toContain('Not used yet');
        await page.goto(`${server.url}/usage`);
        const usage = await text(page);
        expect(usage).toContain(`My first key (${key.prefix}…)`);
        expect(usage).not.toMatch(/My first key #\d/);
      });
    });

    it('The reference’s parameter tables keep their words whole at 1280 and 390 px', async () => {
      const page = await browser.newPage();
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}/docs/images`);
        // A header cell one line high: "Type" and "In" were squeezed until they wrapped letter by letter.
        const heights = await page.locator('main thead th').evaluateAll((cells) =>
          cells.map((cell) => {
            const style = getComputedStyle(cell);
            const padding = Number.parseFloat(style.paddingTop) + Number.parseFloat(style.paddingBottom);
            return (cell.getBoundingClientRect().height - padding) / Number.parseFloat(style.lineHeight || '20');
          }),
        );
        expect(heights.length).toBeGreaterThan(0);
        expect(Math.max(...heights), `${width}px`).toBeLessThan(1.6);
        // And every one-word cell ("header", "string") sits on one line.
        const wrapped = await page.locator('main tbody td').evaluateAll((cells) =>
          cells
            .filter((cell) => /^\S+$/.test(cell.textContent?.trim() ?? ''))
            .filter((cell) => {
              const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const range = document.createRange();
                range.selectNodeContents(node);
                if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1) return true;
              }
              return false;
            })
            .map((cell) => cell.textContent),
        );
        expect(wrapped, `${width}px`).toEqual([]);
      }
    });

    it('Serves an icon at /favicon.ico', async () => {
      const response = await fetch(`${server.url}/favicon.ico`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/icon/);
    });

    it('Says where the confirmation e-mail is when no SMTP server is set', async () => {
      const email = uniqueEmail('unconfirmed');
      await signUp(server.api, email);
      const page = await signedIn(email);
      await withFailureScreenshot(page, 'first-hour-confirm-mail', async () => {
        await page.goto(`${server.url}/billing`);
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        await page.getByText('Confirm your e-mail address first').waitFor();
        expect(await text(page)).toMatch(/no SMTP server configured[\s\S]*mail/);
      });
    });
  },
);

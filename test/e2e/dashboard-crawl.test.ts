import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../fixtures/api-client.js';
import { browserServerEnv, browserSkipReason, launchChromium, submitCredentials } from '../helpers/browser.js';
import { busyAccount } from '../helpers/busy-account.js';
import { operatorSecondFactor, operatorToken } from '../helpers/operators.js';
import { expectPageFits, pageReady, withFailureScreenshot } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const skipReason = browserSkipReason();
const OPERATOR = 'crawl-operator@roomstage.example';

/** Links that are not pages: files, the API itself, and sign-out (a form post elsewhere, a redirect home by GET). */
const NOT_A_PAGE = /^\/(images|originals|api|trpc|build|assets|favicon|logout)\b/;

interface PageProblems {
  unlabeled: string[];
  unexplainedDisabled: string[];
  rawText: string[];
  links: string[];
}

/** Runs in the page: what a person would trip over, and where the page's links lead. */
function inspectPage(): PageProblems {
  const visible = (element: Element) => {
    const rect = element.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0 && getComputedStyle(element).visibility !== 'hidden';
  };
  const describe = (element: Element) => element.outerHTML.replace(/\s+/g, ' ').slice(0, 120);
  const textOf = (ids: string | null) =>
    (ids ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim();
  const nameOf = (element: Element): string => {
    const aria = element.getAttribute('aria-label') ?? textOf(element.getAttribute('aria-labelledby'));
    if (aria.trim()) return aria.trim();
    const labels = (element as HTMLInputElement).labels;
    if (labels && labels.length > 0)
      return Array.from(labels)
        .map((label) => label.textContent ?? '')
        .join(' ')
        .trim();
    const images = Array.from(element.querySelectorAll('img[alt], svg[aria-label]')).map(
      (img) => img.getAttribute('alt') ?? img.getAttribute('aria-label') ?? '',
    );
    return [
      element.textContent ?? '',
      ...images,
      element.getAttribute('title') ?? '',
      (element as HTMLInputElement).value ?? '',
    ]
      .join(' ')
      .trim();
  };

  const controls = Array.from(
    document.querySelectorAll(
      'input:not([type=hidden]), select, textarea, button, a[href], [role=button], [role=slider]',
    ),
  ).filter(visible);
  const unlabeled = controls.filter((control) => !nameOf(control)).map(describe);
  // A disabled control must say why, next to it (aria-describedby) or on it (title).
  const unexplainedDisabled = controls
    .filter(
      (control) =>
        (control as HTMLButtonElement).disabled &&
        !textOf(control.getAttribute('aria-describedby')) &&
        !control.getAttribute('title'),
    )
    .map(describe);
  // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would include scripts
  const text = document.body.innerText;
  const rawText = [
    /\{\s*"[a-z_]+"\s*:/,
    /\bat \S+ \(\S+:\d+:\d+\)/,
    /\[object Object\]/,
    /\bundefined\b/,
    /\bNaN\b/,
    /Unexpected Server Error/,
  ]
    .filter((pattern) => pattern.test(text))
    .map((pattern) => `${pattern}: “${(text.match(pattern)?.[0] ?? '').slice(0, 60)}”`);
  const links = Array.from(document.querySelectorAll<HTMLAnchorElement>('a[href]'))
    .filter((link) => !link.hasAttribute('download') && link.origin === location.origin)
    .map((link) => link.pathname + link.search);
  return { unlabeled, unexplainedDisabled, rawText, links };
}

describe.skipIf(skipReason !== null)(
  `Every dashboard page, clicked through${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    const server = useTestServer('sqlite', async () => ({
      env: { ...(await browserServerEnv()), OPERATOR_EMAILS: OPERATOR },
    }));
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    /** Signs in as `email`, follows every link from the overview, and lists what a person would trip over. */
    async function crawl(
      email: string,
      name: string,
      start = ['/overview'],
    ): Promise<{ problems: string[]; seen: Set<string> }> {
      const page: Page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(15_000);
      const problems: string[] = [];
      const queue = [...start];
      const seen = new Set(queue);
      await withFailureScreenshot(page, name, async () => {
        await page.goto(`${server.url}/login`);
        await submitCredentials(page, email, email === OPERATOR ? operatorSecondFactor(server, OPERATOR) : undefined);
        while (queue.length > 0) {
          const path = queue.shift()!;
          const response = await page.goto(`${server.url}${path}`);
          if (!response || response.status() >= 400) {
            problems.push(`${path}: answered ${response?.status() ?? 'nothing'}`);
            continue;
          }
          // The API reference is Swagger UI's page, checked by its own test.
          if (path.startsWith('/docs')) continue;
          await pageReady(page);
          const found = await page.evaluate(inspectPage);
          for (const element of found.unlabeled) problems.push(`${path}: control without a label: ${element}`);
          for (const element of found.unexplainedDisabled)
            problems.push(`${path}: disabled with no reason given: ${element}`);
          for (const raw of found.rawText) problems.push(`${path}: raw text ${raw}`);
          await expectPageFits(page, path);
          for (const link of found.links) {
            if (NOT_A_PAGE.test(link) || seen.has(link) || seen.size >= 60) continue;
            seen.add(link);
            queue.push(link);
          }
        }
      });
      await page.context().close();
      return { problems, seen };
    }

    const EVERY_PAGE = [
      '/overview',
      '/keys',
      '/webhooks',
      '/billing',
      '/billing/transactions',
      '/usage',
      '/playground',
      '/claims',
      '/gallery',
      '/earnings',
      '/ads/products',
      '/ads/campaigns',
      '/ads/funds',
      '/ads/report',
      '/security',
      '/audit-log',
    ];

    it('A person who follows every link of a busy account at 1280 px and 390 px meets no dead link, overflow, raw JSON, stack trace, unlabeled control or unexplained disabled button', {
      timeout: 240_000,
    }, async () => {
      const account = await busyAccount(server);
      const { problems, seen } = await crawl(account.email, 'dashboard-crawl-busy');
      expect(problems).toEqual([]);
      // Both roles' pages are reached from the navigation alone, and the key's webhook page from the keys table.
      for (const path of [...EVERY_PAGE, `/keys/${account.keyId}/webhook`])
        expect(seen.has(path), `${path} is linked from the dashboard`).toBe(true);
    });

    it('An operator who follows every link, the console included, from a search that finds a busy account meets nothing broken', {
      timeout: 240_000,
    }, async () => {
      const account = await busyAccount(server);
      await operatorToken(server, OPERATOR);
      const { problems, seen } = await crawl(OPERATOR, 'dashboard-crawl-operator', [
        '/overview',
        `/admin?q=${encodeURIComponent(account.email)}`,
      ]);
      expect(problems).toEqual([]);
      // The console from the account menu, and the account from the search's results.
      for (const path of ['/admin', '/admin/payouts', '/admin/fleet', `/admin/accounts/${account.userId}`])
        expect(seen.has(path), `${path} is linked from the dashboard`).toBe(true);
    });

    it('A person who follows every link of a brand-new account meets empty states that say what to do next, and nothing broken', {
      timeout: 240_000,
    }, async () => {
      const account = await signUp(server.api);
      const { problems, seen } = await crawl(account.email, 'dashboard-crawl-new');
      expect(problems).toEqual([]);
      for (const path of EVERY_PAGE) expect(seen.has(path), `${path} is linked from the dashboard`).toBe(true);
    });
  },
);

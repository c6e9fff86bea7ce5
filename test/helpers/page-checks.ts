import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The widths every dashboard page must fit: a laptop and a phone. */
export const CHECK_WIDTHS = [1280, 390] as const;

export const FAILURE_SCREENSHOTS_DIR = join(process.cwd(), 'test-results', 'e2e');

interface Overflow {
  element: string;
  container: string;
  by: number;
}

/**
 * Runs in the page: every rendered element inside a card (or the header) must lie within it. An element inside a
 * scroll container within the card (a wide table's wrapper) is judged by that container instead, since scrolling
 * inside the card is allowed; the page itself must never scroll sideways.
 */
function findOverflows(): { overflows: Overflow[]; pageOverflow: number; headerHeight: number } {
  const describe = (element: Element) => {
    const classes =
      typeof element.className === 'string' && element.className
        ? `.${element.className.trim().split(/\s+/).join('.')}`
        : '';
    const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${element.tagName.toLowerCase()}${classes}${text ? ` “${text}”` : ''}`;
  };
  const clipsOrScrolls = (element: Element) => {
    const { overflowX } = getComputedStyle(element);
    return overflowX === 'auto' || overflowX === 'scroll' || overflowX === 'hidden' || overflowX === 'clip';
  };
  const overflows: Overflow[] = [];
  for (const container of Array.from(document.querySelectorAll('.card, .site-header__inner'))) {
    const box = container.getBoundingClientRect();
    for (const element of Array.from(container.querySelectorAll('*'))) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden') continue;
      // The visually-hidden pattern: a 1 px clipped box for screen readers.
      if (style.position === 'absolute' && rect.width <= 1 && rect.height <= 1) continue;
      let clipped = false;
      for (let parent = element.parentElement; parent && parent !== container; parent = parent.parentElement) {
        if (clipsOrScrolls(parent)) {
          clipped = true;
          break;
        }
      }
      if (clipped) continue;
      const by = Math.max(box.left - rect.left, rect.right - box.right);
      if (by > 1)
        overflows.push({ element: describe(element), container: describe(container).slice(0, 60), by: Math.round(by) });
    }
  }
  // Whatever sticks out of the window itself (outside any card), named so the failure says where to look.
  for (const element of Array.from(document.body.querySelectorAll('*'))) {
    const rect = element.getBoundingClientRect();
    if (rect.width <= 1 || rect.right <= window.innerWidth + 1) continue;
    let clipped = false;
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      if (clipsOrScrolls(parent)) clipped = true;
    }
    const parentRect = element.parentElement?.getBoundingClientRect();
    // Report the outermost offender only: its parent still fits the window.
    if (!clipped && parentRect && parentRect.right <= window.innerWidth + 1) {
      overflows.push({
        element: describe(element),
        container: 'the window',
        by: Math.round(rect.right - window.innerWidth),
      });
    }
  }
  const header = document.querySelector('.site-header__inner');
  return {
    overflows,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    headerHeight: header ? header.getBoundingClientRect().height : 0,
  };
}

/**
 * Waits until the page is what a person sees: loaded and, on a dashboard page, hydrated (the root layout marks
 * `<html data-hydrated>` once React's effects have run). Pages without the dashboard's scripts (the API reference,
 * an image's original page) are ready once loaded.
 */
export async function pageReady(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.waitForFunction(
    () => !('__remixContext' in window) || document.documentElement.dataset.hydrated === 'true',
  );
}

/**
 * Asserts the current page fits at 1280 px and at 390 px: nothing leaves its card, the page never scrolls
 * sideways, and the header stays one row. Leaves the viewport at 1280 px.
 */
export async function expectPageFits(page: Page, name = new URL(page.url()).pathname): Promise<void> {
  const problems: string[] = [];
  for (const width of CHECK_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Let layout settle after the resize (media queries, images with width/height attributes).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const { overflows, pageOverflow, headerHeight } = await page.evaluate(findOverflows);
    for (const overflow of overflows)
      problems.push(`${width}px: ${overflow.element} leaves ${overflow.container} by ${overflow.by}px`);
    if (pageOverflow > 1) problems.push(`${width}px: the page scrolls sideways by ${pageOverflow}px`);
    // One row of controls is about 56 px high; a wrapped header is twice that.
    if (headerHeight > 80)
      problems.push(`${width}px: the header is ${Math.round(headerHeight)}px high (wrapped onto two rows)`);
  }
  await page.setViewportSize({ width: CHECK_WIDTHS[0], height: 900 });
  if (problems.length > 0) {
    await saveFailureScreenshot(page, `overflow-${name}`);
    throw new Error(`${name} does not fit:\n${problems.slice(0, 20).join('\n')}`);
  }
}

export async function saveFailureScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(FAILURE_SCREENSHOTS_DIR, { recursive: true });
  const file = join(FAILURE_SCREENSHOTS_DIR, `${name.replace(/[^a-z0-9-]+/gi, '_').replace(/^_+|_+$/g, '')}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
  return file;
}

/** Runs a browser test's steps; on failure saves a full-page screenshot of where it stopped, then rethrows. */
export async function withFailureScreenshot<T>(page: Page, testName: string, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    const file = await saveFailureScreenshot(page, testName);
    if (error instanceof Error) error.message += `\n(screenshot: ${file})`;
    throw error;
  }
}

/** What people who use a screen reader, a keyboard or speech input cannot get past; "moderate" findings are advice. */
const BLOCKING = new Set(['serious', 'critical']);

/**
 * axe-core's serious and critical findings on the page as it is now, one line each, named by `where`. Only violations
 * are gathered node by node (`resultTypes`): on a page as large as Swagger UI, listing every passing node was most of
 * the work, and a passing node is never reported.
 */
export async function blockingViolations(page: Page, where: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  return violations
    .filter((violation) => BLOCKING.has(violation.impact ?? ''))
    .map(
      (violation) =>
        `${where}: ${violation.impact} ${violation.id} ×${violation.nodes.length} at ${violation.nodes[0]?.target.join(' ')}`,
    );
}

/** The page as it is now (an action's answer, which no URL reaches) has no serious or critical axe-core finding. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(await blockingViolations(page, where)).toEqual([]);
}

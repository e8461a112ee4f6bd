import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (CI installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Browser tests are skipped, not failed, where no chromium is installed (a developer's machine). */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Headless chromium as the page tests drive it: no sandbox (containers), no background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * What a page test expects none of, as it happens on `page`: Content Security Policy refusals
 * (reported on the console) and uncaught page errors.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return problems;
}

/**
 * `expect.poll(() => page.title(), TITLE)` after a click that navigates: the click returns once
 * the navigation has started, and the new document may not have its `<title>` yet on a busy
 * machine (an empty title was read in CI), so the title is polled until it is the one expected.
 */
export const TITLE = { timeout: 10_000, interval: 50 };

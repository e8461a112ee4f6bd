import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core run inside the page as a person's browser shows it. The pages' strict CSP forbids
 * injected script tags; Playwright's evaluate goes through the DevTools protocol, which the CSP
 * does not govern, so the page under test keeps its real policy (and the tests still catch any
 * violation the page itself causes).
 */
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** WCAG 2.x A and AA findings of impact serious or critical: an empty list is a pass. */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(axeSource);
  const findings = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
}

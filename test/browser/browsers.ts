// Debian's Chromium and Firefox ESR driven by puppeteer-core (Chromium over CDP, Firefox over WebDriver BiDi), each with
// a fresh profile, for the status page's browser tests. A page here records every dialog (an alert is a script that
// ran) and dismisses it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { systemTool } from '../support/system-tool.js';

export interface BrowserKind {
  name: 'chromium' | 'firefox';
  browser: 'chrome' | 'firefox';
  /** Its program, as tools/system-tools.txt names it. */
  tool: string;
}

export const BROWSERS: readonly BrowserKind[] = [
  { name: 'chromium', browser: 'chrome', tool: 'chromium' },
  { name: 'firefox', browser: 'firefox', tool: 'firefox-esr' },
];

const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launch(kind: BrowserKind): Promise<Browser> {
  return puppeteer.launch({
    browser: kind.browser,
    executablePath: systemTool(kind.tool),
    headless: true,
    // The TLS test's certificate comes from a private CA the browser does not know.
    acceptInsecureCerts: true,
    userDataDir: mkdtempSync(join(tmpdir(), `page-${kind.name}-`)),
    args: kind.browser === 'chrome' ? CHROMIUM_FLAGS : [],
    protocolTimeout: 120_000,
  });
}

/** A new page whose dialogs (alert, confirm) are recorded and dismissed. */
export async function openPage(browser: Browser): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss().catch(() => undefined);
  });
  await page.setViewport({ width: 1280, height: 900 });
  return { page, dialogs };
}

/** axe-core's script, from node_modules, run in the page (evaluated, as a page script under its CSP could not be). */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of the page as shown now, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id} (${v.nodes} nodes)`);
}

/** Waits until `check` holds of the page's text (main and header), polled; returns the text. */
export async function waitForText(page: Page, check: (text: string) => boolean, timeoutMs: number, what: string): Promise<string> {
  const until = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < until) {
    text = await page.$eval('body', (b) => (b as HTMLElement).innerText).catch(() => '');
    if (check(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the page did not show ${what} within ${timeoutMs} ms; it shows:\n${text.slice(0, 2000)}`);
}

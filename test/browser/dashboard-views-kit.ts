// What the dashboard's browser tests share: a real server with the ingest rate opened, headless Chromium,
// pages that collect console errors, axe-core (no violations at all), and ingest as a browser or a
// server sends it. Needs /usr/bin/chromium.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Test } from 'tap';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`);
}
const SHOTS = new URL('../../.tap/screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const HUMAN_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

export type Kit = {
  s: TestServer;
  browser: Browser;
  /** Everything the pages printed as an error: a test file checks it is empty at its end. */
  consoleErrors: string[];
  context: (opts?: { token?: string; cookie?: string; width?: number }) => Promise<BrowserContext>;
  open: (ctx: BrowserContext, path: string) => Promise<Page>;
  /** Sends events with a project's secret key as a browser's server would (a human's user agent). */
  ingest: (secretKey: string, events: unknown[]) => Promise<{ accepted: number; rejected: number }>;
  axe: (t: Test, page: Page, label: string) => Promise<void>;
  shoot: (page: Page, name: string) => Promise<void>;
  /** At a phone's width (a screenshot too), nothing is wider than the screen; the width is restored. */
  fitsPhone: (t: Test, page: Page, name: string) => Promise<void>;
  close: () => Promise<void>;
};

export async function startKit(): Promise<Kit> {
  const s = await startTestServer({ ingestRate: { capacity: 10_000, refillPerSecond: 10_000 } });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const consoleErrors: string[] = [];
  return {
    s,
    browser,
    consoleErrors,
    async context(opts = {}) {
      const ctx = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 } });
      if (opts.token) await ctx.addInitScript((tok) => sessionStorage.setItem('loupe.token', tok), opts.token);
      if (opts.cookie) {
        const [name, value] = opts.cookie.split('=') as [string, string];
        await ctx.addCookies([{ name, value, url: s.url }]);
      }
      return ctx;
    },
    async open(ctx, path) {
      const page = await ctx.newPage();
      page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(`${path}: ${m.text()}`)));
      page.on('pageerror', (e) => void consoleErrors.push(`${path}: ${e.message}`));
      await page.goto(s.url + path);
      return page;
    },
    async ingest(secretKey, events) {
      const res = await s.request('POST', '/v2/ingest', {
        token: secretKey,
        body: { events },
        headers: { 'user-agent': HUMAN_UA },
      });
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${res.text}`);
      return res.body;
    },
    async axe(t, page, label) {
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (c: Document) => Promise<any> } }).axe;
        const result = await axe.run(document);
        return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]).map((v) => ({
          id: v.id,
          impact: v.impact,
          targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
        }));
      });
      t.same(violations, [], `axe: no violation on ${label}`);
    },
    async shoot(page, name) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(150);
        await page.screenshot({ path: `${SHOTS}dashboard-${name}-${scheme}.png`, fullPage: true });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    },
    async fitsPhone(t, page, name) {
      const before = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(150);
      await page.screenshot({ path: `${SHOTS}dashboard-${name}-phone.png`, fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      t.ok(overflow <= 0, `${name}: nothing wider than a phone`);
      if (before) await page.setViewportSize(before);
    },
    async close() {
      await browser.close();
      await s.close();
    },
  };
}

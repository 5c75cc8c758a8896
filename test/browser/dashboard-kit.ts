// What the dashboard's per-view browser tests share: headless Chromium, a context signed in by token or
// cookie, pages whose console errors are collected, axe-core, a download's text, and ingest with a
// server's secret key (visitor, session and IP given, as a customer's server sends them).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Test } from 'tap';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const HUMAN_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

export type Kit = {
  context: (opts?: { token?: string; cookie?: string; width?: number }) => Promise<BrowserContext>;
  open: (ctx: BrowserContext, path: string) => Promise<Page>;
  /** Every error the pages printed; a test that expects one (a refused read) takes it out. */
  consoleErrors: string[];
};

export function kit(browser: Browser, s: TestServer): Kit {
  const consoleErrors: string[] = [];
  return {
    consoleErrors,
    async context(opts = {}) {
      const ctx = await browser.newContext({
        viewport: { width: opts.width ?? 1280, height: 900 },
        acceptDownloads: true,
      });
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
  };
}

/** Takes out the console errors Chromium logs for reads the test expects the API to refuse. */
export function expectRefused(consoleErrors: string[], status: number): number {
  const before = consoleErrors.length;
  const kept = consoleErrors.filter((e) => !e.includes(`status of ${status}`));
  consoleErrors.splice(0, consoleErrors.length, ...kept);
  return before - kept.length;
}

export async function axe(t: Test, page: Page, label: string) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (c: Document) => Promise<any> } }).axe.run(document);
    return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]).map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  t.same(violations, [], `axe: no violation on ${label}`);
}

/** Clicks what starts a download and answers the saved file's name and text. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

/** Sends events with the project's secret key, as a customer's server does; fails unless all are accepted. */
export async function ingest(s: TestServer, secretKey: string, events: Record<string, unknown>[]) {
  const res = await s.request('POST', '/v2/ingest', { token: secretKey, body: { events } });
  if (res.status !== 202 || res.body.accepted !== events.length)
    throw new Error(`ingest answered ${res.status}: ${res.text}`);
}

// What the dashboard's per-view browser tests of errors, speed, retention, logs and annotations share, on
// top of dashboard-kit.ts: a real server with the ingest rate opened, ingest as a browser's server sends
// it, screenshots in both colour schemes, and a phone-width check. Needs /usr/bin/chromium.
import { mkdirSync } from 'node:fs';
import type { Test } from 'tap';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { axe, HUMAN_UA, kit, launch } from './dashboard-kit.ts';

export { HUMAN_UA };
const SHOTS = new URL('../../.tap/screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

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
  const browser = await launch();
  const base = kit(browser, s);
  return {
    s,
    browser,
    consoleErrors: base.consoleErrors,
    context: base.context,
    open: base.open,
    axe,
    async ingest(secretKey, events) {
      const res = await s.request('POST', '/v2/ingest', {
        token: secretKey,
        body: { events },
        headers: { 'user-agent': HUMAN_UA },
      });
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${res.text}`);
      return res.body;
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

// What the browser tells about itself: device facts, bot signals, the page, Do Not Track.
// Reads only; listeners that feed the pointer signal are installed by the client.
import type { LoupeEvent, PageInfo } from '../event.ts';

type Nav = Navigator & {
  connection?: { effectiveType?: string };
  globalPrivacyControl?: boolean;
  msDoNotTrack?: string;
};

export function deviceInfo(win: Window): NonNullable<LoupeEvent['device']> {
  const nav = win.navigator as Nav;
  const device: NonNullable<LoupeEvent['device']> = {};
  if (win.screen) device.screen = `${win.screen.width}x${win.screen.height}`;
  if (win.innerWidth) device.viewport = `${win.innerWidth}x${win.innerHeight}`;
  if (nav.language) device.language = nav.language;
  if (nav.connection?.effectiveType) device.connection = nav.connection.effectiveType;
  return device;
}

/** Static bot hints; pointerEvents is whether a real pointer or touch was seen since load. */
export function botSignals(win: Window, pointerEvents: boolean): NonNullable<LoupeEvent['signals']> {
  const nav = win.navigator;
  const headless =
    /HeadlessChrome|PhantomJS|SlimerJS/i.test(nav.userAgent ?? '') ||
    ((nav.plugins?.length ?? 0) === 0 && (nav.languages?.length ?? 0) === 0);
  return { webdriver: nav.webdriver === true, headless, pointerEvents };
}

export function dntEnabled(win: Window): boolean {
  const nav = win.navigator as Nav;
  const flag = nav.doNotTrack ?? (win as Window & { doNotTrack?: string }).doNotTrack ?? nav.msDoNotTrack;
  return flag === '1' || flag === 'yes' || nav.globalPrivacyControl === true;
}

export function pageInfo(win: Window, route: (() => string | null) | undefined, referrer: string): PageInfo {
  const { href, pathname } = win.location;
  const page: PageInfo = {
    url: href.split('#')[0] ?? href,
    path: pathname || '/',
    route: safeRoute(route),
    title: win.document?.title ?? '',
  };
  if (referrer) page.referrer = referrer;
  return page;
}

function safeRoute(route: (() => string | null) | undefined): string | null {
  try {
    return route?.() ?? null;
  } catch {
    return null; // a throwing route callback must not lose the event
  }
}

export function scrollDepth(win: Window): number {
  const doc = win.document?.documentElement;
  const height = Math.max(doc?.scrollHeight ?? 0, win.document?.body?.scrollHeight ?? 0);
  if (height <= 0) return 0;
  const seen = (win.scrollY ?? 0) + (win.innerHeight ?? 0);
  return Math.max(0, Math.min(100, Math.round((seen / height) * 100)));
}

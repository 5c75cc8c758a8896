// User-agent enrichment: browser, OS, device class and crawler/headless flags, with the names the
// dashboards group by. Memoised (bounded LRU) because the same few agents repeat; it scores nothing.
import { UAParser } from 'ua-parser-js';
import { isbot } from 'isbot';
import { createMemo } from '../memo.ts';

export type DeviceClass = 'desktop' | 'mobile' | 'tablet';

export type UserAgentInfo = {
  browser: string | null;
  /** `major.minor`, e.g. "131.0". */
  browserVersion: string | null;
  os: string | null;
  /** `major.minor` at most, e.g. "10.15" or "18.1". */
  osVersion: string | null;
  device: DeviceClass | null;
  /** Crawlers, HTTP libraries (curl, python-requests) and headless browsers. */
  isBot: boolean;
  headless: boolean;
};

const EMPTY: UserAgentInfo = Object.freeze({
  browser: null,
  browserVersion: null,
  os: null,
  osVersion: null,
  device: null,
  isBot: false,
  headless: false,
});

/** A missing agent (a server-side event) is unknown, not a bot: the server SDK may legitimately omit it. */
export function parseUserAgent(ua: string | null): UserAgentInfo {
  const key = ua?.trim();
  return key ? memo(key, parseFrozen) : EMPTY;
}

const parseFrozen = (ua: string): UserAgentInfo => Object.freeze(parse(ua));

const memo = createMemo<UserAgentInfo>(1_000);

function parse(ua: string): UserAgentInfo {
  const result = UAParser(ua);
  const headless = HEADLESS.test(ua);
  const browser = browserName(result.browser.name);
  const os = osName(result.os.name);
  return {
    browser,
    browserVersion: version(result.browser.version, true),
    os,
    osVersion: version(result.os.version, false),
    device: deviceClass(result.device.type, os),
    isBot: headless || isbot(ua),
    headless,
  };
}

const HEADLESS = /HeadlessChrome|PhantomJS|SlimerJS/i;

function browserName(name: string | undefined): string | null {
  if (!name) return null;
  // ua-parser splits mobile and headless builds into their own names; we report the browser family.
  const family = name.replace(/^Mobile /, '').replace(/ Headless$/, '');
  return family === 'WebKit' ? null : family;
}

const LINUX_DISTROS =
  /^(Ubuntu|Debian|Fedora|Mint|Arch|Gentoo|Kubuntu|Xubuntu|Manjaro|CentOS|RedHat|SUSE|openSUSE|Linux)$/i;

function osName(name: string | undefined): string | null {
  if (!name) return null;
  if (LINUX_DISTROS.test(name)) return 'Linux';
  if (name === 'Mac OS') return 'macOS';
  if (name === 'Chromium OS') return 'Chrome OS';
  return name;
}

function version(raw: string | undefined, padMinor: boolean): string | null {
  const match = raw ? /^(\d+)(?:\.(\d+))?/.exec(raw) : null;
  if (!match) return null;
  const minor = match[2] ?? (padMinor ? '0' : undefined);
  return minor === undefined ? match[1] : `${match[1]}.${minor}`;
}

const DESKTOP_OS = new Set(['Windows', 'macOS', 'Linux', 'Chrome OS']);

function deviceClass(type: string | undefined, os: string | null): DeviceClass | null {
  if (type === 'mobile' || type === 'wearable') return 'mobile';
  if (type === 'tablet') return 'tablet';
  if (type) return null; // smart TVs, consoles, XR, embedded: not one of the three classes
  return os && DESKTOP_OS.has(os) ? 'desktop' : null;
}

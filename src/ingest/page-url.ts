// Page URL enrichment: host, path (no query or hash) and UTM parameters of the page an event came from.
// Never throws: without a path, and without a URL one can be read from (none sent, or garbage), host and
// path are null (unknown).
import { isLocalhost } from './ip.ts';
import { createMemo } from '../memo.ts';

export type Utm = {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
};

export type PageUrl = { host: string | null; path: string | null; utm: Utm; isLocalhost: boolean };

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
const MAX_UTM_LENGTH = 200;
const RELATIVE_HOST = 'relative.invalid';

/** `path`, when sent, wins over the URL's own path (SPAs send the route they show). Memoised: a site's
 *  pages repeat, and parsing a URL is the dearest part of enrichment. The answer is frozen: share it. */
export function parsePageUrl(url: string | null, path?: string | null): PageUrl {
  // The key names both parts unambiguously: the URL by its length, the path after a mark for present.
  const key = `${url === null ? '-' : url.length}:${url ?? ''}${path == null ? '-' : `+${path}`}`;
  return memo(key, () => {
    const page = parse(url, path ?? null);
    Object.freeze(page.utm);
    return Object.freeze(page);
  });
}

const memo = createMemo<PageUrl>(10_000);

function parse(url: string | null, path: string | null): PageUrl {
  const parsed = toUrl(url);
  const host = parsed && parsed.hostname !== RELATIVE_HOST ? parsed.hostname.replace(/\.$/, '') || null : null;
  return {
    host,
    path: cleanPath(path) ?? cleanPath(parsed?.pathname),
    utm: utmFrom(parsed?.searchParams ?? toUrl(path ?? null)?.searchParams),
    isLocalhost: isLocalhost(host, null),
  };
}

export function emptyUtm(): Utm {
  return { source: null, medium: null, campaign: null, term: null, content: null };
}

function toUrl(value: string | null | undefined): URL | null {
  const text = value?.trim();
  if (!text) return null;
  try {
    // Relative URLs ("/pricing?utm_source=x") still carry a path and a query worth reading.
    if (text.startsWith('/') && !text.startsWith('//')) return new URL(text, `http://${RELATIVE_HOST}`);
    const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^:/]+:\d+(\/|$)/.test(text); // not "host:port"
    const url = new URL(hasScheme ? text : `https://${text}`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function cleanPath(value: string | null | undefined): string | null {
  const text = value?.trim().replace(/[?#].*$/s, '');
  if (!text) return null;
  return text.startsWith('/') ? text : `/${text}`;
}

function utmFrom(params: URLSearchParams | undefined): Utm {
  const utm = emptyUtm();
  if (!params) return utm;
  for (const key of UTM_KEYS) {
    const value = params.get(`utm_${key}`)?.trim();
    utm[key] = value ? value.slice(0, MAX_UTM_LENGTH) : null;
  }
  return utm;
}

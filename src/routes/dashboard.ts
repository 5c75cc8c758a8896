// The web dashboard: its page at / and under /p/…, and its built files under /assets/. Built in memory
// on first use (src/dashboard/build.ts); assets have hashed names and are cached for good, the page is
// revalidated by ETag. Both are sent gzipped to clients that accept it.
import { notFound } from '../errors.ts';
import { dashboardBundle, type Asset } from '../dashboard/build.ts';
import { renderPage } from '../dashboard/page.ts';
import type { Services } from '../services.ts';
import { reply, route, type Reply } from './route.ts';
import { textBody } from './responses.ts';
import { matchesEtag } from './sdk.ts';

const ASSET_CACHE = 'public, max-age=31536000, immutable';
// The page names the current assets, so it is always revalidated (a 304 costs one small round trip).
const PAGE_CACHE = 'no-cache';
const PAGE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy':
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

// One rendered page per view and sign-in setting (a process may host apps with different configs: tests).
const pages = new Map<string, Promise<Asset>>();

function pageAsset(services: Services, view: string): Promise<Asset> {
  const signIn = Boolean(services.signIn);
  const key = `${view}|${signIn}`;
  let asset = pages.get(key);
  if (!asset) {
    asset = dashboardBundle().then((b) => renderPage(b, { signIn, view }));
    pages.set(key, asset);
    asset.catch(() => pages.delete(key));
  }
  return asset;
}

const pageRoute = (path: string, view: (params: Record<string, string>) => string) =>
  route({
    method: 'GET',
    path,
    access: 'public',
    tag: 'Dashboard',
    summary: 'The web dashboard (HTML). Its views read only this API.',
    responses: { 200: 'HTML', 304: 'Not modified' },
    response: textBody,
    responseType: 'text/html',
    handler: async ({ services, headers, params }) =>
      send(await pageAsset(services, view(params)), headers, PAGE_CACHE, PAGE_HEADERS),
  });

/** A view's chunks are preloaded only when it is one the bundle has (the address is the visitor's). */
const projectView = (params: Record<string, string>) => (params.view === 'overview' || !params.view ? 'overview' : '');

export const dashboardRoutes = [
  pageRoute('/', () => 'projects'),
  pageRoute('/p/{pid}', projectView),
  pageRoute('/p/{pid}/{view}', projectView),
  pageRoute('/p/{pid}/{view}/{item}', projectView),
  route({
    method: 'GET',
    path: '/assets/{file}',
    access: 'public',
    tag: 'Dashboard',
    summary: "The dashboard's scripts and styles; names carry a content hash.",
    responses: { 200: 'JavaScript or CSS', 304: 'Not modified', 404: 'Unknown file' },
    response: textBody,
    responseType: 'text/javascript',
    async handler({ params, headers }) {
      const asset = (await dashboardBundle()).assets.get(params.file ?? '');
      if (!asset) throw notFound(`No dashboard file ${params.file}.`);
      return send(asset, headers, ASSET_CACHE);
    },
  }),
];

/** The asset, gzipped when the client takes gzip, or 304 when its ETag matches. */
function send(asset: Asset, headers: Record<string, string>, cache: string, extra: Record<string, string> = {}): Reply {
  const gzip = /\bgzip\b/.test(headers['accept-encoding'] ?? '');
  // Each encoding is its own representation, so it has its own tag.
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gz"` : asset.etag;
  const common = { ...extra, ETag: etag, 'Cache-Control': cache, Vary: 'Accept-Encoding' };
  if (matchesEtag(headers['if-none-match'], etag)) return reply({ status: 304, headers: common });
  return reply({
    raw: gzip ? asset.gzip : asset.body,
    contentType: asset.contentType,
    headers: gzip ? { ...common, 'Content-Encoding': 'gzip' } : common,
  });
}

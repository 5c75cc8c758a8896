// A tiny customer site for the browser tests, on its own origin: `http://shop.test:<port>` (the browser
// maps shop.test to 127.0.0.1, so the server does not see a localhost page) and the same site as
// `http://127.0.0.1:<port>` for the localhost case. A page loads loupe.js by script tag and its own
// content-hashed script with SPA links and buttons that track and throw; a page uses the ESM build
// without the tag; `/k/<name>` is the shop page for another project's key; a 404 for the fetch breadcrumb.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TestSite = { url: string; localUrl: string; scriptPath: string; close: () => Promise<void> };

export type SiteOptions = {
  loupeUrl: string;
  publicKey: string;
  widgetKey: string;
  otherKeys?: Record<string, string>;
};

/** The host the browser must map to 127.0.0.1 (`--host-resolver-rules=MAP shop.test 127.0.0.1`). */
export const SITE_HOST = 'shop.test';
/** The shop's own script, under a content-hashed name as a bundler would emit it. */
export const SHOP_SCRIPT = '/assets/shop-4f9a2b1c.js';

export async function startTestSite(opts: SiteOptions): Promise<TestSite> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' || path === '/pricing' || path === '/docs')
      return html(res, shopPage(opts.loupeUrl, opts.publicKey));
    const other = /^\/k\/([\w-]+)$/.exec(path ?? '')?.[1];
    if (other && opts.otherKeys?.[other]) return html(res, shopPage(opts.loupeUrl, opts.otherKeys[other]));
    if (path === SHOP_SCRIPT)
      return void res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(SHOP_JS);
    if (path === '/bye') return html(res, '<!doctype html><title>Bye</title><p>Bye</p>');
    if (path === '/esm') return html(res, esmPage(opts));
    if (path === '/widget') return html(res, widgetPage(opts));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${SITE_HOST}:${port}`,
    localUrl: `http://127.0.0.1:${port}`,
    scriptPath: SHOP_SCRIPT,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function html(res: import('node:http').ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
}

function shopPage(loupeUrl: string, publicKey: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title>
<script src="${loupeUrl}/v2/sdk/loupe.js" data-key="${publicKey}" data-release="1.2.3"></script>
</head><body>
<h1 id="title">Welcome to the shop</h1>
<p style="font-size:28px">Everything a test could want, in one small page with enough text to paint.</p>
<nav><a id="to-pricing" href="/pricing">Pricing</a> <a id="to-docs" href="/docs">Docs</a></nav>
<button id="signup">Sign up</button>
<button id="throw">Throw</button>
<button id="reject">Reject</button>
<button id="fetch-then-throw">Fetch, then throw</button>
<script src="${SHOP_SCRIPT}"></script>
</body></html>`;
}

// Plain ES5 as a site would ship it; the errors it throws have their frames in this file.
const SHOP_JS = `document.querySelector('nav').addEventListener('click', function (e) {
  var a = e.target.closest('a'); if (!a) return
  e.preventDefault()
  history.pushState({}, '', a.getAttribute('href'))
  document.getElementById('title').textContent = a.textContent
})
document.getElementById('signup').onclick = function () { loupe.track('signup', { plan: 'pro' }) }
document.getElementById('throw').onclick = function () { throw new TypeError('kaboom from button') }
document.getElementById('reject').onclick = function () { Promise.reject('boom string') }
document.getElementById('fetch-then-throw').onclick = function () {
  fetch(location.origin + '/missing-resource?token=abc').then(function () {
    setTimeout(function () { window.afterFetchThrown = true; throw new RangeError('after fetch 404') })
  })
}
`;

/** No script tag: the ESM build by import, checked for what shutdown() must undo. */
function esmPage({ loupeUrl, publicKey }: { loupeUrl: string; publicKey: string }): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>ESM</title></head><body><p>ESM</p>
<script type="module">
const fetchBefore = window.fetch
const pushBefore = history.pushState
const loaded = await import(${JSON.stringify(`${loupeUrl}/v2/sdk/loupe.esm.js`)})
const loadedWithoutTag = typeof window.loupe === 'undefined' && typeof loaded.init === 'function'
const client = loaded.init({ key: ${JSON.stringify(publicKey)}, host: ${JSON.stringify(loupeUrl)}, persistence: 'memory', plugins: [loaded.errors(), loaded.vitals()] })
const wrapped = window.fetch !== fetchBefore && history.pushState !== pushBefore
loaded.shutdown()
const fetchRestored = window.fetch === fetchBefore
const pushStateRestored = history.pushState === pushBefore
const sentAfterShutdown = client.send('pageview') !== null
const again = loaded.init({ key: ${JSON.stringify(publicKey)}, host: ${JSON.stringify(loupeUrl)}, persistence: 'memory', plugins: [loaded.errors()], autoPageviews: false })
const reinit = again !== client && window.fetch !== fetchBefore
loaded.shutdown()
window.esmResult = { loadedWithoutTag, wrapped, fetchRestored: fetchRestored && window.fetch === fetchBefore, pushStateRestored, sentAfterShutdown, reinit }
</script>
</body></html>`;
}

/** The widget build: its panel lists what was sent, and a refused call goes to the server as a report. */
function widgetPage({ loupeUrl, widgetKey }: SiteOptions): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Widget</title>
<script>window.loupe = { q: [['track', 'queued_early', { from: 'stub' }]] }</script>
<script src="${loupeUrl}/v2/sdk/loupe-widget.js" data-key="${widgetKey}" data-persistence="memory"></script>
</head><body><p>Widget</p>
<script>
loupe.track('pageview')
loupe.track('widget_ok', { n: 1 })
</script>
</body></html>`;
}

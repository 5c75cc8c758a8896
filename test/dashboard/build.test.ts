// The dashboard bundle: built in memory with hashed names, each view in its own chunk, and what a first
// visit loads stays inside the budget (150 KB gzip, page included).
import t from 'tap';
import { buildDashboard, firstLoad, FIRST_VISIT } from '../../src/dashboard/build.ts';
import { renderPage } from '../../src/dashboard/page.ts';

const BUDGET = 150 * 1024;
const bundle = await buildDashboard();

t.test('assets carry content hashes, types and gzipped copies', async (t) => {
  t.ok(bundle.assets.size >= 4, 'shell, stylesheet and view chunks');
  for (const [name, asset] of bundle.assets) {
    t.match(name, /^[a-z]+-[A-Z0-9]{8}\.(js|css)$/, `${name} is hashed`);
    t.match(asset.etag, /^"[\w-]{27}"$/);
    t.ok(asset.gzip.length < asset.body.length, `${name} compresses`);
  }
  t.match(bundle.entry.script, /\.js$/);
  t.match(bundle.entry.style, /\.css$/);
});

t.test('views are separate chunks, so later views do not grow the first page', async (t) => {
  t.same(Object.keys(bundle.views).sort(), [
    'errors',
    'logs',
    'map',
    'overview',
    'people',
    'projects',
    'retention',
    'session',
    'settings',
    'speed',
    'sql',
  ]);
  const shell = new Set([bundle.entry.script, ...bundle.preload]);
  for (const [view, files] of Object.entries(bundle.views))
    t.notOk(
      files.some((f) => shell.has(f)),
      `${view}'s files are loaded only with it`,
    );
  t.ok(
    bundle.views.overview!.some((f) => (bundle.assets.get(f)?.body.toString() ?? '').includes('uplot')),
    'uPlot comes with the overview, not the shell',
  );
  const mapChunk = bundle.views.map![0]!;
  t.ok(bundle.assets.get(mapChunk)!.body.length > 50_000, 'the world map (shapes and d3-geo) is its own chunk');
  t.notOk(bundle.views.overview!.includes(mapChunk), 'loaded when its tab shows');
});

t.test('a first visit to any address loads less than 150 KB gzip', async (t) => {
  for (const address of Object.keys(FIRST_VISIT) as (keyof typeof FIRST_VISIT)[]) {
    const page = renderPage(bundle, { signIn: false, view: address });
    const bytes = firstLoad(bundle, address).reduce((n, f) => n + bundle.assets.get(f)!.gzip.length, page.gzip.length);
    t.ok(bytes < BUDGET, `${address}: ${(bytes / 1024).toFixed(1)} KB gzip`);
  }
});

t.test('the page names the shell and tells whether a sign-in provider is configured', async (t) => {
  const off = renderPage(bundle, { signIn: false }).body.toString();
  const on = renderPage(bundle, { signIn: true }).body.toString();
  t.match(off, `<script type="module" src="/assets/${bundle.entry.script}">`);
  t.match(off, `href="/assets/${bundle.entry.style}"`);
  t.match(off, '<meta name="loupe-signin" content="">');
  t.match(on, '<meta name="loupe-signin" content="/v2/auth/signin">');
});

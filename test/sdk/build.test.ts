import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildSdk, sdkBundle } from '../../src/sdk/build.ts';

t.test('buildSdk writes the three bundles and reports their sizes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'loupe-sdk-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const built = await buildSdk(dir);
  t.same(
    built.map((b) => b.file),
    ['loupe.js', 'loupe-widget.js', 'loupe.esm.js'],
  );
  for (const b of built) {
    t.ok(b.gzipBytes > 0 && b.gzipBytes < b.bytes, `${b.file}: ${b.bytes} B, ${b.gzipBytes} B gzip`);
    t.ok(b.gzipBytes < 20_000, `${b.file} stays small`);
  }
  const script = await readFile(join(dir, 'loupe.js'), 'utf8');
  t.notMatch(script, /process\.env/, 'no Node globals in the browser bundle');
  t.notMatch(script, /^\s*(import|export)\b/m, 'IIFE, not a module');
  const esm = await readFile(join(dir, 'loupe.esm.js'), 'utf8');
  t.match(esm, /export\s*\{/, 'the ESM build exports');
});

t.test('sdkBundle builds once in memory and caches with a stable etag', async (t) => {
  const first = await sdkBundle('loupe.js');
  const again = await sdkBundle('loupe.js');
  t.equal(first, again, 'cached');
  t.match(first.etag, /^"[\w-]{27}"$/);
  const widget = await sdkBundle('loupe-widget.js');
  t.not(widget.etag, first.etag);
  await t.rejects(sdkBundle('../secret'), { code: 'SDK_NOT_FOUND' });
});

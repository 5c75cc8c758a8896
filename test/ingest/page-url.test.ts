import t from 'tap';
import { emptyUtm, parsePageUrl } from '../../src/ingest/page-url.ts';

t.test('host, path and UTM parameters', async (t) => {
  t.same(
    parsePageUrl(
      'https://Example.com/Pricing/?utm_source=Google&utm_medium=cpc&utm_campaign=spring&utm_term=analytics&utm_content=ad1#plans',
    ),
    {
      host: 'example.com',
      path: '/Pricing/',
      utm: { source: 'Google', medium: 'cpc', campaign: 'spring', term: 'analytics', content: 'ad1' },
      isLocalhost: false,
    },
  );
});

t.test('path edge cases', async (t) => {
  // Without a path, and without a URL one can be read from, the path is unknown (null), not "/".
  const cases: Array<[string | null, string | null | undefined, string | null, string | null]> = [
    ['https://example.com', undefined, 'example.com', '/'],
    ['https://example.com/docs', undefined, 'example.com', '/docs'],
    ['https://example.com/docs/', undefined, 'example.com', '/docs/'], // trailing slash kept as sent
    ['https://example.com/a?b=1#c', undefined, 'example.com', '/a'],
    ['https://example.com:8443/x', undefined, 'example.com', '/x'],
    ['https://example.com./x', undefined, 'example.com', '/x'],
    ['https://example.com/app', '/app/settings?tab=2#top', 'example.com', '/app/settings'], // path wins
    ['https://example.com/app', 'settings', 'example.com', '/settings'],
    ['https://example.com/app', '', 'example.com', '/app'],
    ['/relative/page?x=1', undefined, null, '/relative/page'],
    ['example.com/no-scheme', undefined, 'example.com', '/no-scheme'],
    [null, '/only-path', null, '/only-path'],
    [null, null, null, null],
    ['', undefined, null, null],
    ['not a url at all', undefined, null, null],
    ['javascript:alert(1)', undefined, null, null],
    ['ftp://example.com/file', undefined, null, null],
    ['http://[::1]:3000/', undefined, '[::1]', '/'],
  ];
  for (const [url, path, host, expectedPath] of cases) {
    const result = parsePageUrl(url, path);
    t.equal(result.host, host, `host of ${url} + ${path}`);
    t.equal(result.path, expectedPath, `path of ${url} + ${path}`);
  }
});

t.test('UTM values are trimmed, empty ones are null, and a relative path can carry them', async (t) => {
  t.same(parsePageUrl('https://example.com/?utm_source=%20news%20&utm_medium=').utm, {
    ...emptyUtm(),
    source: 'news',
  });
  t.same(parsePageUrl(null, '/landing?utm_campaign=launch').utm, { ...emptyUtm(), campaign: 'launch' });
  t.same(parsePageUrl('https://example.com/').utm, emptyUtm());
  t.equal(parsePageUrl(`https://example.com/?utm_source=${'a'.repeat(500)}`).utm.source?.length, 200);
});

t.test('localhost pages', async (t) => {
  t.equal(parsePageUrl('http://localhost:3000/').isLocalhost, true);
  t.equal(parsePageUrl('localhost:5173/dashboard').isLocalhost, true);
  t.equal(parsePageUrl('http://127.0.0.1:8080/a').isLocalhost, true);
  t.equal(parsePageUrl('http://[::1]:3000/').isLocalhost, true);
  t.equal(parsePageUrl('http://shop.localhost/').isLocalhost, true);
  t.equal(parsePageUrl('https://example.com/').isLocalhost, false);
  t.equal(parsePageUrl(null).isLocalhost, false);
});

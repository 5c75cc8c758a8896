import t from 'tap';
import { cut, scrub } from '../../src/sdk/scrub.ts';

t.test('drops query strings', async (t) => {
  t.equal(scrub('GET https://a.com/api/users?id=1&token=abc failed'), 'GET https://a.com/api/users failed');
  t.equal(scrub('navigated to /search?q=shoes'), 'navigated to /search');
  t.equal(scrub('(https://a.com/p?x=1)'), '(https://a.com/p)');
  t.equal(scrub('Are you sure? Really?'), 'Are you sure? Really?', 'a question mark in prose is no query');
  t.equal(scrub("Unexpected token '?'"), "Unexpected token '?'");
});

t.test('drops a query only up to the colon before a frame line number', async (t) => {
  t.equal(scrub('https://a.com/x.js?v=123:1:20'), 'https://a.com/x.js:1:20');
  t.equal(scrub('    at f (https://a.com/x.js?v=1&b=2:10:5)'), '    at f (https://a.com/x.js:10:5)');
  t.equal(
    scrub('renderCart@https://a.com/x.js?v=1:1:2\n@https://a.com/y.js?v=2:3:4\n'),
    'renderCart@https://a.com/x.js:1:2\n@https://a.com/y.js:3:4\n',
  );
  t.equal(
    scrub('    at webpack-internal:///./src/x.js:10:5'),
    '    at webpack-internal:///./src/x.js:10:5',
    'file and path are kept',
  );
});

t.test('replaces emails', async (t) => {
  t.equal(scrub('no user jane.doe+shop@example.co.uk here'), 'no user [x] here');
  t.equal(scrub('onClick@https://a.com/x.js:1:2'), 'onClick@https://a.com/x.js:1:2', 'a Firefox frame is no email');
  t.equal(scrub('fn@app.js:1:2'), 'fn@app.js:1:2');
  t.equal(
    scrub('https://cdn.x.net/npm/lodash@4.17.21/lodash.min.js:1:2'),
    'https://cdn.x.net/npm/lodash@4.17.21/lodash.min.js:1:2',
  );
});

t.test('replaces tokens of 20+ letters, digits, underscores or dashes', async (t) => {
  t.equal(scrub('request 7f3e9c2a-1b4d-4e8f-9a6b-2c1d0e9f8a7b failed'), 'request [x] failed');
  t.equal(scrub('key sk_live_abcdefghijklmnopqrst'), 'key [x]');
  t.equal(scrub('abcdefghijklmnopqrs'), 'abcdefghijklmnopqrs', '19 characters stay');
  t.equal(scrub('https://x.com/reset/abcdefghijklmnopqrstuv0123:1:2'), 'https://x.com/reset/[x]:1:2');
  t.equal(
    scrub('chrome-extension://hgimnogjllphhhkhlmebbmlgjoejdpjl/content.js:1:2'),
    'chrome-extension://[x]/content.js:1:2',
  );
});

t.test('keeps a bundle file name that looks like a token', async (t) => {
  const frame = 'at t (https://a.com/_next/static/chunks/pages/_app-0a1b2c3d4e5f6a7b.js:1:4521)';
  t.equal(scrub(frame), frame);
  t.equal(scrub('/assets/chunk-12345678.mjs'), '/assets/chunk-12345678.mjs');
});

t.test('replaces runs of 6+ digits but keeps line and column', async (t) => {
  t.equal(scrub('order 1234567 card 123456 pin 12345'), 'order [x] card [x] pin 12345');
  t.equal(scrub('id:1234567'), 'id:[x]');
  t.equal(scrub('at f (https://a.com/x.js:1:123456)'), 'at f (https://a.com/x.js:1:123456)');
  t.equal(scrub('at f (https://a.com/x.js:1234567:8)'), 'at f (https://a.com/x.js:1234567:8)');
});

t.test('is idempotent', async (t) => {
  const text = 'User a@b.co id 12345678 at f (https://a.com/x-1a2b3c4d.js?v=9:1:2) key abcdefghijklmnopqrstuvwxyz';
  t.equal(scrub(scrub(text)), scrub(text));
});

t.test('cut keeps at most max characters and never splits a surrogate pair', async (t) => {
  t.equal(cut('abcdef', 3), 'abc');
  t.equal(cut('abc', 10), 'abc');
  t.equal(cut('a😀b', 2), 'a');
  t.equal(cut('a😀b', 3), 'a😀');
  t.equal(cut('abc', 0), '');
});

t.test('adjacent emails, and linear time on long hostile input', async (t) => {
  t.equal(scrub('a@b.com,c@d.org'), '[x],[x]');
  for (const text of ['a'.repeat(100_000), 'a.'.repeat(50_000), 'a?'.repeat(50_000), 'x@y.'.repeat(25_000)]) {
    const start = performance.now();
    scrub(text);
    t.ok(performance.now() - start < 500, `${text.slice(0, 4)}… scrubbed quickly`);
  }
});

// The reference: the first form of scrub, which looked at every run of [A-Za-z0-9_-]. The scrub now
// matches only the runs that can be masked; on any text the two must agree.
function scrubEveryRun(text: string): string {
  return text
    .replace(/([\w/.~%-])\?[^\s'"()<>`]+?(?=(?::\d+){1,2}(?=[\s'"()<>`]|$)|[\s'"()<>`]|$)/g, '$1')
    .replace(
      /(^|[^A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-]|:\d)/g,
      '$1[x]',
    )
    .replace(/:\d+:\d+(?=[\s)]|$)|[A-Za-z0-9_-]+/gm, (run, offset: number, whole: string) => {
      if (run.startsWith(':')) return run;
      if (
        /^\.(?:m?js|cjs|jsx|tsx?|css|map|wasm)(?![A-Za-z0-9])/.test(
          whole.slice(offset + run.length, offset + run.length + 8),
        )
      )
        return run;
      if (run.length >= 20) return '[x]';
      return run.replace(/\d{6,}/g, '[x]');
    });
}

t.test('matching only the maskable runs gives what looking at every run gives', async (t) => {
  let seed = 11;
  const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const pieces = [
    'a',
    'Z',
    '0',
    '7',
    '123456',
    '9999999',
    '_',
    '-',
    '.',
    ':',
    ':12:345',
    '.js',
    '.css',
    '.jsx',
    '/',
    ' ',
    '\n',
    ')',
    '(',
    '?',
    '?v=1',
    '@',
    ':1:1234567',
    ':1234567:8',
    ':7',
    'x@y.com',
    'abcdefghij',
    'ABCDEFGHIJ0123456789',
    'app-0a1b2c3d4e5f6a7b',
    'é',
    '\t',
    '\u00a0',
    '\u2028',
    '\u000b',
  ];
  for (let i = 0; i < 5_000; i++) {
    const text = Array.from(
      { length: 1 + Math.floor(rand() * 30) },
      () => pieces[Math.floor(rand() * pieces.length)],
    ).join('');
    const expected = scrubEveryRun(text);
    if (scrub(text) !== expected)
      return t.fail(
        `differs on ${JSON.stringify(text)}: ${JSON.stringify(scrub(text))} vs ${JSON.stringify(expected)}`,
      );
  }
  t.pass('5,000 random texts agree');
});

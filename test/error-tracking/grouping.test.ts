import t from 'tap';
import { readFileSync } from 'node:fs';
import { fingerprint, normaliseFile, normaliseMessage } from '../../src/error-tracking/grouping.ts';
import { parseStack } from '../../src/error-tracking/stack-parser.ts';
import { scrub } from '../../src/sdk/scrub.ts';

type Fixture = { engine: string; group: string | null; type: string; message: string; stack: string };
const fixtures: Fixture[] = JSON.parse(
  readFileSync(new URL('../fixtures/stacks.json', import.meta.url), 'utf8'),
).errors;

const keyOf = (f: Fixture) => fingerprint({ type: f.type, message: f.message, frames: parseStack(f.stack) }).key;

t.test('every fixture lands in its group, and groups never share a key', async (t) => {
  t.ok(fixtures.length >= 13);
  const keyByGroup = new Map<string, string>();
  const groupByKey = new Map<string, string>();
  fixtures.forEach((f, i) => {
    const key = keyOf(f);
    const group = f.group ?? `ungrouped-${i}`; // group null: its own type + message group
    t.match(key, /^[0-9a-f]{40}$/);
    if (keyByGroup.has(group)) t.equal(key, keyByGroup.get(group), `${group} #${i} joins its group`);
    keyByGroup.set(group, key);
    if (groupByKey.has(key)) t.equal(groupByKey.get(key), group, `${group} #${i} shares no key with another group`);
    groupByKey.set(key, group);
  });
  t.equal(new Set(keyByGroup.values()).size, keyByGroup.size);
});

t.test('a stack already scrubbed by the SDK groups like the raw one', async (t) => {
  for (const f of fixtures) {
    t.equal(
      fingerprint({ type: f.type, message: scrub(f.message), frames: parseStack(scrub(f.stack)) }).key,
      keyOf(f),
      f.group ?? 'null',
    );
  }
});

t.test('line and column do not count; a function of 3 characters or fewer does not count', async (t) => {
  const at = (fn: string, line: number) =>
    fingerprint({
      type: 'Error',
      message: 'x',
      frames: parseStack(`Error: x\n    at ${fn} (https://a.com/a.js:${line}:1)`),
    }).key;
  t.equal(at('handle', 1), at('handle', 900));
  t.equal(at('abc', 1), at('xyz', 2));
  t.not(at('abcd', 1), at('wxyz', 1));
});

t.test('without an in-app frame: type + message only', async (t) => {
  const ext = fingerprint({
    type: 'TypeError',
    message: 'boom',
    frames: parseStack('    at chrome-extension://aaa/c.js:1:2'),
  });
  const none = fingerprint({ type: 'TypeError', message: 'boom', frames: [] });
  t.equal(ext.key, none.key);
  t.equal(none.culprit, '');
  t.not(none.key, fingerprint({ type: 'Error', message: 'boom', frames: [] }).key, 'type counts');
});

t.test('title and culprit', async (t) => {
  const [cart, , , , minified] = fixtures.map((f) =>
    fingerprint({ type: f.type, message: f.message, frames: parseStack(f.stack) }),
  );
  t.equal(cart.title, "TypeError: Cannot read properties of undefined (reading 'price')");
  t.equal(cart.culprit, 'renderCart (/assets/index.js)');
  t.equal(minified.culprit, '/_next/static/chunks/pages/_app.js');
  const long = fingerprint({ type: 'Error', message: 'a '.repeat(300), frames: [] });
  t.equal(long.title.length, 255);
  t.equal(
    fingerprint({ type: 'Error', message: 'mail a@b.com', frames: [] }).title,
    'Error: mail [x]',
    'title is scrubbed',
  );
  t.equal(fingerprint({ type: null, message: null, frames: [] }).title, 'Error');
});

t.test('normaliseFile strips origin, query, position and content hash', async (t) => {
  const cases: Array<[string, string]> = [
    ['https://shop.example.com/assets/index-4f9a2b1c.js:1:2', '/assets/index.js'],
    ['https://shop.example.com/assets/index-BXq3f8Za.js?v=1732230000', '/assets/index.js'],
    ['https://a.com/_next/static/chunks/pages/app-0a1b2c3d4e5f.js', '/_next/static/chunks/pages/app.js'],
    ['https://a.com/static/js/main.1a2b3c4d.chunk.js', '/static/js/main.chunk.js'],
    ['https://a.com/assets/index-12345678.js', '/assets/index.js'],
    ['https://a.com/assets/index-[x].js', '/assets/index.js'],
    ['webpack-internal:///./src/x.js', '/./src/x.js'],
    ['https://a.com/assets/settings.js', '/assets/settings.js'],
    ['https://a.com/assets/my-Settings.js', '/assets/my-Settings.js'],
    ['https://a.com/assets/app-settings.js', '/assets/app-settings.js'],
    // Rollup 4 (Vite 5+) hashes are base64url: `-` and `_` are hash characters too.
    ['https://a.com/assets/index-B-ZMTf1H.js', '/assets/index.js'],
    ['https://a.com/assets/index-aD-elAj9.js', '/assets/index.js'],
    ['https://a.com/assets/index-_x3Ab9Q-.js', '/assets/index.js'],
    ['https://a.com/assets/vendor-chunk-B-ZMTf1H.js', '/assets/vendor-chunk.js'],
    ['https://a.com/assets/use-my-thing.js', '/assets/use-my-thing.js'],
    ['https://a.com/assets/first-in-line.js', '/assets/first-in-line.js'],
    ['https://a.com/assets/app.settings.js', '/assets/app.settings.js'],
    ['https://a.com/assets/index', '/assets/index'],
    // Hyphenated words with digits are names, not hashes.
    ['https://a.com/assets/error-404-page.js', '/assets/error-404-page.js'],
    ['https://a.com/assets/icons-24-solid.js', '/assets/icons-24-solid.js'],
    ['https://a.com/assets/chunk-2-vendor.js', '/assets/chunk-2-vendor.js'],
  ];
  for (const [file, want] of cases) t.equal(normaliseFile(file), want, file);
});

t.test('normaliseMessage: variable parts go, meaning stays', async (t) => {
  t.equal(normaliseMessage('User 48213 not found'), normaliseMessage('User 99 not found'));
  t.equal(normaliseMessage('Object 5f3a9c2b at 0x1F'), 'Object <id> at <hex>');
  t.equal(normaliseMessage('Loading chunk 123 failed.'), 'Loading chunk <n> failed.');
  t.not(
    normaliseMessage('Request failed with status code 404'),
    normaliseMessage('Request failed with status code 500'),
  );
  t.not(
    normaliseMessage("Cannot read properties of undefined (reading 'price')"),
    normaliseMessage("Cannot read properties of undefined (reading 'name')"),
  );
  t.not(normaliseMessage("Unexpected token '<'"), normaliseMessage("Unexpected token '?'"));
  t.equal(
    normaliseMessage('Unexpected token \'<\', "<!DOCTYPE "... is not valid JSON'),
    normaliseMessage('Unexpected token \'<\', "<html lang"... is not valid JSON'),
  );
  t.equal(
    normaliseMessage('can\'t access property "price", item is undefined'),
    'can\'t access property "price", item is undefined',
  );
  t.equal(
    normaliseMessage('Failed to fetch dynamically imported module: https://a.com/assets/Page-BXq3f8Za.js'),
    'Failed to fetch dynamically imported module: /assets/Page.js',
  );
});

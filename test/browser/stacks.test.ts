// Stacks captured from real Chromium (issue 5: "plus stacks captured from real Chromium in a test"), run
// through what the server does with an error: the SDK's scrub, then parseStack and fingerprint. The same
// script is served under two content-hashed names; an error keeps its issue key across the two builds.
import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium } from 'playwright-core';
import { fingerprint } from '../../src/error-tracking/grouping.ts';
import { parseStack, type Frame } from '../../src/error-tracking/stack-parser.ts';
import { scrub } from '../../src/sdk/scrub.ts';
import { APP_JS, BUILDS, startStacksSite, type Caught } from './stacks-site.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`);
}

type Grouped = Caught & { scrubbed: string; frames: Frame[]; key: string; culprit: string };

const site = await startStacksSite();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
});
t.teardown(async () => {
  await browser.close();
  await site.close();
});

const builds: Record<keyof typeof BUILDS, Map<string, Grouped>> = { a: await capture('a'), b: await capture('b') };
const { a, b } = builds;
const at = (build: Map<string, Grouped>, name: string): Grouped => {
  const caught = build.get(name);
  if (!caught) throw new Error(`no case ${name}`);
  return caught;
};
const fileOf = (build: keyof typeof BUILDS) => `${site.url}${BUILDS[build].split('?')[0]}`;

t.test('every case threw in Chromium and left a V8 stack', async (t) => {
  for (const build of [a, b]) {
    t.same(
      [...build.values()].filter((c) => !/^\w*Error$/.test(c.type) || !/\n\s+at /.test(c.stack)).map((c) => c.name),
      [],
      'no case without an Error and its frames',
    );
  }
  t.match(at(b, 'named').stack, '?v=2', "the raw stack holds the script's query");
  t.notMatch(at(b, 'named').scrubbed, '?v=2', 'the scrub drops it, up to the colon before the line number');
});

t.test('frames parse with file, line, column, function and inApp', async (t) => {
  for (const build of ['a', 'b'] as const) {
    const named = at(builds[build], 'named');
    t.match(named, { type: 'TypeError', message: /reading 'amount'/ });
    t.match(
      named.frames[0],
      {
        file: fileOf(build),
        line: lineOf('return item.price.amount'),
        column: Number,
        function: 'readPrice',
        inApp: true,
      },
      `${build}: the top frame`,
    );
    t.ok(inLine(named.frames[0]), 'the column lies on that line');
    const names = named.frames.map((f) => f.function);
    t.ok(
      names.indexOf('readPrice') < names.indexOf('Array.reduce') &&
        names.indexOf('Array.reduce') < names.indexOf('checkoutTotal'),
      `${build}: callers in order (${names.join(' < ')})`,
    );
    t.match(
      named.frames.find((f) => f.function === 'Array.reduce'),
      { file: '<anonymous>', line: null, inApp: false },
      'a built-in frame is not in app',
    );

    const arrow = at(builds[build], 'arrow');
    t.match(
      arrow.frames[0],
      { file: fileOf(build), line: lineOf("throw new RangeError('arrow failed')"), function: null, inApp: true },
      `${build}: the anonymous arrow has no name`,
    );
    t.match(arrow.frames[1], { function: 'Array.map', inApp: false });

    const minified = at(builds[build], 'minified');
    t.match(
      minified.frames[0],
      { file: fileOf(build), line: lineOf('function n(e){'), function: 'n', inApp: true },
      `${build}: the one-letter function`,
    );
    t.ok(inLine(minified.frames[0]));
  }
});

t.test('the same error from the same top frame has one key across builds, call paths and values', async (t) => {
  for (const name of a.keys())
    t.equal(at(b, name).key, at(a, name).key, `${name}: the same key under ${BUILDS.a} and ${BUILDS.b}`);
  t.not(at(a, 'named').frames[0]?.file, at(b, 'named').frames[0]?.file, 'although the files differ');

  const [form, api] = [at(a, 'same-place-form'), at(a, 'same-place-api')];
  t.same(form.frames[0], api.frames[0], 'two call paths, one throw site');
  t.match(form.frames[1], { function: 'submitFromForm' });
  t.match(api.frames[1], { function: 'submitFromApi' });
  t.equal(form.key, api.key, 'one key for both call paths');

  t.equal(at(a, 'minified').key, at(a, 'minified-again').key, 'a number in the message does not split the issue');
  t.equal(at(a, 'named').culprit, 'readPrice (/assets/app.js)', 'the culprit names the file without its content hash');
  t.equal(at(a, 'minified').culprit, '/assets/app.js', 'a minified name is left out');
});

t.test('different throw sites get different keys', async (t) => {
  const other = at(a, 'other-place');
  const form = at(a, 'same-place-form');
  t.equal(other.message, form.message, 'the same message and type…');
  t.match(other.frames[0], { function: 'saveOrder', inApp: true });
  t.not(other.key, form.key, '…thrown from another function is another issue');
  const keys = new Set([...a.values()].map((c) => c.key));
  t.equal(keys.size, a.size - 2, 'seven errors, five issues (two call paths and two minified values share one)');
});

/** Loads one build's page and runs its cases; each stack scrubbed, parsed and fingerprinted as ingest does. */
async function capture(build: keyof typeof BUILDS): Promise<Map<string, Grouped>> {
  const page = await browser.newPage();
  await page.goto(`${site.url}/page/${build}`);
  const caught = await page.evaluate(() => (window as unknown as { collectStacks: () => Caught[] }).collectStacks());
  await page.close();
  return new Map(
    caught.map((c) => {
      const scrubbed = scrub(c.stack);
      const frames = parseStack(scrubbed);
      const { key, culprit } = fingerprint({ type: c.type, message: scrub(c.message), frames });
      return [c.name, { ...c, scrubbed, frames, key, culprit }];
    }),
  );
}

function lineOf(text: string): number {
  const index = APP_JS.split('\n').findIndex((line) => line.includes(text));
  if (index === -1) throw new Error(`not in the script: ${text}`);
  return index + 1;
}

function inLine(frame: Frame | undefined): boolean {
  const line = APP_JS.split('\n')[(frame?.line ?? 0) - 1];
  return line !== undefined && (frame?.column ?? 0) >= 1 && (frame?.column ?? 0) <= line.length;
}

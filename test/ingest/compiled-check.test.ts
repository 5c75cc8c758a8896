import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import * as v from 'valibot';
import { compileCheck } from '../../src/ingest/compiled-check.ts';
import { EventSchema, validateEvent } from '../../src/ingest/event-schema.ts';
import { bodies, makeTemplates, makeVisitors } from '../bench/ingest-events.ts';

const accepts = compileCheck(EventSchema);

/** What the compiled check must answer: valibot accepts x and answers x itself. */
const valibotKeeps = (x: unknown) => {
  const r = v.safeParse(EventSchema, x);
  return r.success && isDeepStrictEqual(r.output, x);
};

/** Events that use every entry of the schema, in the forms the SDKs send. */
const full = {
  id: 'evt_01',
  name: 'signup',
  ts: '2026-11-24T10:00:00.000Z',
  visitor: 'anon_1',
  session: 'sess_1',
  page: {
    url: 'https://example.com/a?utm_source=x',
    path: '/a',
    route: '/[slug]',
    title: 'A',
    referrer: 'https://google.com/',
  },
  props: { plan: 'pro', seats: 3, trial: false, coupon: null },
  user: { id: 'u_1', traits: { email: 'x@example.com', age: 41 } },
  groups: { company: 'acme' },
  experiments: { hero: 'b' },
  release: 'web@1.2.3',
  environment: 'preview',
  device: { screen: '390x844', viewport: '390x700', language: 'en-US', connection: '4g' },
  signals: { webdriver: false, headless: null, pointerEvents: true },
  vitals: { lcp: 1200, inp: 80, cls: 0.02, fcp: 900, ttfb: 120, element: 'img.hero' },
  context: { ip: '203.0.113.9', userAgent: 'Mozilla/5.0' },
};
const valid: unknown[] = [
  full,
  { name: 'pageview' },
  { name: 'error', props: { message: 'boom', stack: 's'.repeat(4096), breadcrumbs: '1 click a' } },
  { name: 'speed', vitals: { lcp: null, inp: 0 }, page: { url: null, title: null } },
  { name: 'x', user: { id: null }, release: null, ts: '2026-11-24 10:00:00+02:00' },
];

/** A deterministic stream of numbers in [0, 1). */
let seed = 0x5eed_1234;
const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Values that break some rule or other, or none: every field gets each of them in turn. */
const oddValues: unknown[] = [
  undefined,
  null,
  '',
  'ok',
  'x'.repeat(65),
  'x'.repeat(129),
  'x'.repeat(600),
  'a\u0007b',
  'production',
  'staging',
  0,
  -1,
  1.5,
  1e308,
  true,
  false,
  [],
  ['a'],
  {},
  { a: 1 },
  { a: [1] },
  { ['k'.repeat(65)]: 1 },
  Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, i])),
  '2026-11-24T10:00:00Z',
  '2026-11-24T10:00:00',
];

/** Sets (or deletes) one member somewhere in a copy of `event`, at the top or one level down. */
function mutate(event: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(event);
  const key = pick([...Object.keys(copy), 'unknown', 'page', 'device', 'vitals', 'props', 'user']);
  const nested = copy[key];
  const value = pick(oddValues);
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested) && rand() < 0.6) {
    const inner = nested as Record<string, unknown>;
    const innerKey = pick([...Object.keys(inner), 'other', 'traits', 'stack']);
    if (value === undefined) delete inner[innerKey];
    else inner[innerKey] = value;
  } else if (value === undefined) {
    delete copy[key];
  } else {
    copy[key] = value;
  }
  return copy;
}

t.test('every valid event of the SDKs and the benchmark passes, as itself', async (t) => {
  const next = bodies([...makeTemplates(40, 50, makeVisitors(200), { errors: 0.2 })], 't');
  const generated = Array.from({ length: 40 }, () => (JSON.parse(next()) as { events: unknown[] }).events).flat();
  for (const event of [...valid, ...generated]) {
    t.ok(valibotKeeps(event), `valibot keeps ${JSON.stringify(event).slice(0, 60)}`);
    t.ok(accepts(event), `compiled check passes ${JSON.stringify(event).slice(0, 60)}`);
  }
});

t.test('on thousands of mutated events it answers exactly what valibot does', async (t) => {
  let passed = 0;
  let refused = 0;
  for (let i = 0; i < 6_000; i++) {
    let event = pick(valid) as Record<string, unknown>;
    for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) event = mutate(event);
    const expected = valibotKeeps(event);
    if (accepts(event) !== expected) t.fail(`disagrees on ${JSON.stringify(event)}: valibot ${expected}`);
    if (expected) passed++;
    else refused++;
  }
  // Both answers were drawn many times: the comparison was not one-sided.
  t.ok(passed > 300, `${passed} mutated events pass`);
  t.ok(refused > 1_000, `${refused} mutated events do not`);
});

t.test('what valibot would change is not passed as it came', async (t) => {
  t.notOk(accepts({ name: 'pageview', extra: 1 }), 'an unknown key (valibot drops it)');
  t.notOk(accepts({ name: 'pageview', page: { url: 'https://x', hash: '#a' } }), 'an unknown nested key');
  t.notOk(accepts([]), 'an array (valibot answers an object)');
  t.notOk(accepts({ name: 'pageview', page: [] }), 'an array where an object goes');
  t.notOk(accepts(null), 'null');
  t.notOk(accepts({ page: {} }), 'a required entry absent');
  const withDefault = compileCheck(v.object({ a: v.optional(v.string(), 'x'), b: v.nullable(v.number(), 0) }));
  t.notOk(withDefault({ b: 1 }), 'an absent entry with a default (valibot fills it)');
  t.notOk(withDefault({ a: 'y', b: null }), 'null where the default goes');
  t.ok(withDefault({ a: 'y', b: 2 }), 'both given');
});

t.test('a rejected event still gets valibot’s field and message', async (t) => {
  const r = validateEvent({ name: 'x'.repeat(65) }, 3);
  t.same(r.ok ? null : { index: r.rejection.index, field: r.rejection.field, message: r.rejection.message }, {
    index: 3,
    field: 'name',
    message: 'name must be 1–64 characters',
  });
  const ok = validateEvent(full, 0);
  t.ok(ok.ok && ok.event === full, 'a valid event is answered as it came');
});

t.test('a schema or action it does not know is refused when compiled, not skipped', async (t) => {
  t.throws(() => compileCheck(v.object({ a: v.array(v.string()) })), /schema\.a is a array schema/);
  t.throws(() => compileCheck(v.pipe(v.string(), v.trim())), /trim transformation, which changes the value/);
  t.throws(() => compileCheck(v.pipe(v.string(), v.email())), /email action/);
  t.throws(() => compileCheck(v.fallback(v.string(), 'x')), /fallback/);
  t.throws(() => compileCheck(v.object({ toString: v.string() })), /every object inherits/);
  t.doesNotThrow(() => compileCheck(v.pipe(v.string(), v.title('a title'), v.maxLength(3))), 'metadata is not a rule');
});

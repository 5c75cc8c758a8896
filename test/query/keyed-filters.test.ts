// Filters on `prop:<key>` and `group:<type>` go through the GIN indexes on props and groups (0095): the
// containment condition beside the exact `->>` test finds a value's events whatever JSON type it was sent
// as (a string, a number, a boolean), the answers are the `->>` test's alone, and the plan takes the index.
// A `trait:<key>` filter joins the visitors that have the value once, and selects what looking each event's
// visitor up did.
import t from 'tap';
import { dimensionSql, keyedContainmentSql } from '../../src/query/dimensions.ts';
import { filtersSql, whereSql } from '../../src/query/filters.ts';
import type { Filter } from '../../src/query/params.ts';
import { startTestServer } from '../support/server.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const yesterday = Math.floor(Date.now() / DAY) * DAY - DAY;

// One visitor and session per event, so every count below is of events.
const sent: {
  props?: Record<string, unknown>;
  groups?: Record<string, string>;
  user?: { traits: Record<string, unknown> };
}[] = [
  { props: { amount: 5 } },
  { props: { amount: '5' } },
  { props: { amount: 5.5 } },
  { props: { amount: -0.25 } },
  { props: { amount: 1e15 } },
  { props: { flag: true } },
  { props: { flag: 'true' } },
  { props: { flag: false } },
  { props: { flag: null } },
  { props: { plan: 'pro' } },
  { props: { plan: 'Pro' } },
  { props: { plan: 'pro', amount: 5 } },
  { props: { plan: 'say "hi" \\ ü' } },
  { props: { 'a.b': 'x' } },
  { props: { $ref: '1' } },
  { groups: { company: 'c1' }, user: { traits: { tier: 'gold', seats: 5 } } },
  { groups: { company: 'c2' }, props: { plan: 'pro' }, user: { traits: { tier: 'gold' } } },
  { user: { traits: { tier: 'silver' } } },
  {},
];
const res = await s.request('POST', '/v2/ingest', {
  token: site.secretKey,
  headers: {
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  },
  body: {
    events: sent.map((e, i) => ({
      id: `k${i}`,
      name: 'order',
      visitor: `v${i}`,
      ts: new Date(yesterday + 3_600_000 + i * 60_000).toISOString(),
      page: { url: `https://shop.example.com/p${i}` },
      ...e,
    })),
  },
});
// Another project's events with the same members and visitor ids, without traits: the index entry, and a
// visitor, are per project.
const other = await s.project('other');
const copy = await s.request('POST', '/v2/ingest', {
  token: other.secretKey,
  body: { events: sent.map(({ user: _, ...e }, i) => ({ id: `o${i}`, name: 'order', visitor: `v${i}`, ...e })) },
});
await s.settle(); // the visitors' traits are written at the actor's checkpoint
// Asserted after the setup: with an assertion made before it at the top level, tap ended the root test
// (its teardown closing the server) while the setup still awaited.
t.equal(res.status, 202);
t.equal(res.body.accepted, sent.length);
t.equal(copy.status, 202);

// [dimension, value, the events it selects (by index in `sent`)]
const cases: [string, string, number[]][] = [
  ['prop:amount', '5', [0, 1, 11]],
  ['prop:amount', '5.0', []], // `->>` prints 5: the index finds 5, the exact test drops it
  ['prop:amount', '5.5', [2]],
  ['prop:amount', '-0.25', [3]],
  ['prop:amount', '1000000000000000', [4]],
  ['prop:amount', '1e15', []],
  ['prop:flag', 'true', [5, 6]],
  ['prop:flag', 'false', [7]],
  ['prop:flag', 'null', []], // a JSON null has no text
  ['prop:plan', 'pro', [9, 11, 16]],
  ['prop:plan', 'Pro', [10]],
  ['prop:plan', 'say "hi" \\ ü', [12]],
  ['prop:a.b', 'x', [13]],
  ['prop:$ref', '1', [14]],
  ['prop:missing', 'x', []],
  ['group:company', 'c1', [15]],
  ['group:company', 'c2', [16]],
  ['group:plan', 'pro', []], // a prop is not a group
  ['trait:tier', 'gold', [15, 16]],
  ['trait:tier', 'silver', [17]],
  ['trait:seats', '5', [15]],
  ['trait:plan', 'pro', []], // a prop is not a trait
];
const keyed = cases.filter(([dimension]) => !dimension.startsWith('trait:'));

const range = { from: new Date(yesterday).toISOString(), to: new Date(yesterday + DAY).toISOString() };

t.test('each filter selects the events whose member reads as its value, through the API', async (t) => {
  for (const [dimension, value, want] of cases) {
    const q = new URLSearchParams({ ...range, metrics: 'visitors,events', [`filter[${dimension}]`]: value });
    const got = await s.request('GET', `/v2/projects/site/breakdown/page?${q}`, owner);
    t.equal(got.status, 200, `${dimension}=${value}`);
    const pages = (got.body.data as { value: string }[]).map((r) => r.value).sort();
    t.same(pages, want.map((i) => `/p${i}`).sort(), `${dimension}=${value}: pages`);
    const stats = await s.request('GET', `/v2/projects/site/stats?${q}`, owner);
    t.equal(stats.body.data.sessions.value, want.length, `${dimension}=${value}: sessions`);
  }
});

t.test('an excluded value keeps every other event, those without the member too', async (t) => {
  const q = new URLSearchParams({ ...range, metrics: 'visitors', 'filter[prop:plan]': '!pro' });
  const got = await s.request('GET', `/v2/projects/site/stats?${q}`, owner);
  t.equal(got.body.data.sessions.value, sent.length - 3);
  q.set('filter[trait:tier]', '!gold');
  q.delete('filter[prop:plan]');
  const traits = await s.request('GET', `/v2/projects/site/stats?${q}`, owner);
  t.equal(traits.body.data.sessions.value, sent.length - 2, 'trait: the visitors without it, those without traits too');
});

t.test('the containment finds every event of the exact test, of its project alone, through the index', async (t) => {
  for (const project of ['site', 'other'])
    for (const [dimension, value, want] of keyed) {
      const contains = keyedContainmentSql(sql, [project], dimension, value)!;
      const [row] = await sql<{ found: number; exact: number; elsewhere: number }[]>`
        select count(*) filter (where ${contains})::int as found,
          count(*) filter (where ${contains} and ${filtersSql(sql, [{ dimension, value, exclude: false }])})::int as exact,
          count(*) filter (where ${contains} and e.project_id <> ${project})::int as elsewhere
        from events e`;
      const label = `${project} ${dimension}=${value}`;
      t.ok(row!.found >= want.length, `${label}: a superset`);
      t.equal(row!.exact, want.length, `${label}: exact`);
      t.equal(row!.elsewhere, 0, `${label}: this project's alone`);
    }
  t.equal(keyedContainmentSql(sql, ['site'], 'trait:plan', 'pro'), null, "traits are the visitor's, not indexed");
  t.equal(keyedContainmentSql(sql, ['site'], 'country', 'GB'), null);
  // Without a sequential scan to fall back on, the plan must take the partial GIN index: the condition is
  // spelled so that it can (the index's expression, operator class and predicate).
  for (const [dimension, value, index] of [
    ['prop:plan', 'pro', 'props'],
    ['prop:amount', '5', 'props'],
    ['group:company', 'c1', 'groups'],
  ] as const) {
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx<{ 'QUERY PLAN': string }[]>`
        explain select count(*) from events e where ${keyedContainmentSql(sql, ['site', 'other'], dimension, value)!}`;
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    // Partitions name an expression index after its function: the condition says which it is.
    const scan = new RegExp(
      `Bitmap Index Scan on .*\\n\\s+Index Cond: \\(jsonb_set\\('\\{\\}'::jsonb, ARRAY\\[project_id\\], ${index}`,
    );
    t.match(text, scan, `${dimension}=${value} takes the ${index} index`);
  }
  // A read's own condition over a range (stats.ts and every raw read build theirs with whereSql) carries that
  // containment, so the planner can take the index where the matches are few (on these few rows the range's
  // btree is as cheap, and taken).
  const scope = {
    projectIds: ['site'],
    range: { from: new Date(yesterday), to: new Date(yesterday + DAY) },
    traffic: 'all' as const,
    environment: 'all' as const,
    filters: [{ dimension: 'prop:plan', value: 'pro', exclude: false }],
  };
  const plan = await sql<
    { 'QUERY PLAN': string }[]
  >`explain select count(*) from events e where ${whereSql(sql, scope)}`;
  t.match(
    plan.map((r) => r['QUERY PLAN']).join('\n'),
    `jsonb_set('{}'::jsonb, ARRAY[project_id], props, true) @> '{"site": {"plan": "pro"}}'::jsonb`,
  );
});

t.test("a trait filter selects what looking up each event's visitor did, project by project", async (t) => {
  for (const [dimension, value, want] of cases.filter(([d]) => d.startsWith('trait:'))) {
    for (const exclude of [false, true]) {
      const filters: Filter[] = [{ dimension, value, exclude }];
      const lookup = exclude
        ? sql`${dimensionSql(sql, dimension)} is distinct from ${value}`
        : sql`${dimensionSql(sql, dimension)} = ${value}`;
      const rows = await sql<{ project_id: string; joined: number; looked_up: number }[]>`
        select e.project_id, count(*) filter (where ${filtersSql(sql, filters)})::int as joined,
          count(*) filter (where ${lookup})::int as looked_up
        from events e group by 1 order by 1`;
      for (const r of rows)
        t.equal(r.joined, r.looked_up, `${r.project_id} ${dimension}=${exclude ? '!' : ''}${value}`);
      const site = rows.find((r) => r.project_id === 'site')!;
      t.equal(site.joined, exclude ? sent.length - want.length : want.length);
      t.equal(rows.find((r) => r.project_id === 'other')!.joined, exclude ? sent.length : 0, 'none of its own');
    }
  }
});

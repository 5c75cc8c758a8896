// A `trait:` filter's events are found through their sessions (src/query/scope.ts traitSessions): the visitors
// with the value through the traits' index (0096), their sessions within each range, and those sessions'
// events through events_project_session, instead of every event of the range. The list must hold every
// event the filter selects (a session that began before the range, a visitor whose trait came on a later
// event, excluded and combined filters, several projects) and the answers must equal the range's.
import t from 'tap';
import type { Sql } from 'postgres';
import { statsSql } from '../../src/query/stats.ts';
import { pageFactsSql } from '../../src/query/metrics.ts';
import { readScope, traitSessions } from '../../src/query/scope.ts';
import type { Scope } from '../../src/query/filters.ts';
import { traitVisitorsSql } from '../../src/query/dimensions.ts';
import { referenceServer } from './reference.ts';
import type { Filter, ReadParams } from '../../src/query/params.ts';

const DAY = 86_400_000;
const MIN = 60_000;
const {
  s,
  projects: [site, other],
  owner,
  sql,
} = await referenceServer(t, ['site', 'other'], { builder: true });
// The range read: three days ending at today's midnight; the previous range is the three days before.
const to = Math.floor(Date.now() / DAY) * DAY;
const from = to - 3 * DAY;

type Sent = { visitor: string; at: number; path: string; traits?: Record<string, unknown>; name?: string };
const sent: Sent[] = [
  // a (gold): a session in the previous range, one that began 10 minutes before the range, one inside it.
  { visitor: 'a', at: from - DAY + 2 * 3_600_000, path: '/old1', traits: { tier: 'gold' } },
  { visitor: 'a', at: from - DAY + 2 * 3_600_000 + MIN, path: '/old2' },
  { visitor: 'a', at: from - 10 * MIN, path: '/s0' },
  { visitor: 'a', at: from + 5 * MIN, path: '/s1' },
  { visitor: 'a', at: from + DAY, path: '/p1' },
  { visitor: 'a', at: from + DAY + 2 * MIN, path: '/p2' },
  { visitor: 'a', at: from + DAY + 3 * MIN, path: '/p2', name: 'engagement' },
  // b (silver) and c (no traits) on the same pages.
  { visitor: 'b', at: from + DAY, path: '/p1', traits: { tier: 'silver' } },
  { visitor: 'c', at: from + DAY, path: '/p1' },
  { visitor: 'c', at: from + DAY + MIN, path: '/p3' },
  // d: gold from its second event on (a visitor's traits are its current ones), with a number.
  { visitor: 'd', at: from + 2 * DAY, path: '/p4' },
  { visitor: 'd', at: from + 2 * DAY + MIN, path: '/p5', traits: { tier: 'gold', seats: 5 } },
];
const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const body = (prefix: string, traits: (e: Sent) => Record<string, unknown> | undefined) => ({
  events: sent.map((e, i) => ({
    id: `${prefix}${i}`,
    name: e.name ?? 'pageview',
    visitor: e.visitor,
    ts: new Date(e.at).toISOString(),
    page: { url: `https://shop.example.com${e.path}` },
    ...(e.name === 'engagement' ? { props: { timeMs: 45_000 } } : {}),
    ...(traits(e) ? { user: { traits: traits(e) } } : {}),
  })),
});
const posted = [
  await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    headers: { 'user-agent': ua },
    body: body('t', (e) => e.traits),
  }),
  // The other project: the same visitors, whose traits are the other way round (a is silver there).
  await s.request('POST', '/v2/ingest', {
    token: other.secretKey,
    headers: { 'user-agent': ua },
    body: body('o', (e) => (e.traits?.tier === 'gold' ? { tier: 'silver' } : e.traits ? { tier: 'gold' } : undefined)),
  }),
];
await s.settle(); // sessions and traits are written at the actor's checkpoint
const sessionsOf = async (project: string, visitors: string[]) =>
  (
    await sql<{ id: string; started_at: Date; last_activity: Date }[]>`
      select id, started_at, last_activity from sessions where project_id = ${project} and visitor_id = any(${visitors})
      order by started_at`
  ).filter((r) => r.last_activity.getTime() >= from && r.started_at.getTime() < to);
const gold = await sessionsOf('site', ['a', 'd']);
const params = (filters: Filter[]): ReadParams => ({
  window: { kind: 'fixed', range: { from: new Date(from), to: new Date(to) } },
  period: null,
  traffic: 'all',
  environment: 'all',
  filters,
});
const gold$ = [{ dimension: 'trait:tier', value: 'gold', exclude: false }];
const scope = await readScope(sql, ['site'], params(gold$));
// Asserted after the setup: an assertion before a top-level await ends the root test early.
for (const p of posted) t.equal(p.status, 202);

t.test('the list holds the sessions of the visitors with the value within each range', async (t) => {
  t.equal(gold.length, 3, "a's session over the range's start and inside it, and d's");
  t.same([...scope.current.sessions!].sort(), gold.map((r) => r.id).sort(), 'the current range');
  t.equal(scope.previous.sessions!.length, 2, "the previous range: a's session there and the one over the seam");
  const both = await readScope(
    sql,
    ['site'],
    params([...gold$, { dimension: 'trait:seats', value: '5', exclude: false }]),
  );
  t.same(
    both.current.sessions,
    (await sessionsOf('site', ['d'])).map((r) => r.id),
    'two traits: the visitors with both',
  );
  const none = await readScope(sql, ['site'], params([{ dimension: 'trait:tier', value: 'bronze', exclude: false }]));
  t.same(none.current.sessions, [], 'a value nobody has: an empty list');
  // The index holds 5 as the number 5.0 contains; `->>` prints 5, and the filter asks for that text.
  const text = await readScope(sql, ['site'], params([{ dimension: 'trait:seats', value: '5.0', exclude: false }]));
  t.same(text.current.sessions, [], 'a number by its text: 5.0 is not 5');
  const excluded = await readScope(sql, ['site'], params([{ dimension: 'trait:tier', value: 'gold', exclude: true }]));
  t.equal(excluded.current.sessions, undefined, 'an excluded value lists nothing (the range is read)');
  const plain = await readScope(sql, ['site'], params([{ dimension: 'country', value: 'US', exclude: false }]));
  t.equal(plain.current.sessions, undefined, 'nor does any other filter');
  t.equal(
    await traitSessions(sql, ['site'], gold$, scope.current.range, 2),
    undefined,
    'past its limit, no list: the range is read',
  );
});

t.test(
  'through the API: the events of the visitors with the value, a session begun before the range too',
  async (t) => {
    const q = new URLSearchParams({
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      'filter[trait:tier]': 'gold',
    });
    const stats = await s.request('GET', `/v2/projects/site/stats?${q}`, owner);
    t.equal(stats.status, 200);
    t.equal(stats.body.data.visitors.value, 2, 'a and d');
    t.equal(stats.body.data.sessions.value, 3);
    t.equal(stats.body.data.pageviews.value, 5, '/s1 (its session began before the range), /p1, /p2, /p4, /p5');
    t.equal(stats.body.data.visitors.previous, 1, 'the previous range: a');
    const pages = await s.request('GET', `/v2/projects/site/breakdown/page?${q}`, owner);
    const rows = pages.body.data as { value: string; pageviews: number; timeOnPageMs: number }[];
    t.same(rows.map((r) => r.value).sort(), ['/p1', '/p2', '/p4', '/p5', '/s1']);
    t.equal(rows.find((r) => r.value === '/p1')!.timeOnPageMs, 2 * MIN, 'time on /p1: to the next pageview');
    t.equal(rows.find((r) => r.value === '/p2')!.timeOnPageMs, 45_000, "time on /p2: the last pageview's report");
    q.set('filter[trait:tier]', 'silver');
    const silver = await s.request('GET', `/v2/projects/site/stats?${q}`, owner);
    t.equal(silver.body.data.visitors.value, 1, 'silver: b alone');
    // Across projects the list may hold ids of two projects' sessions; each event's visitor is tested too.
    const across = await s.request('GET', `/v2/stats?${q}`, owner);
    t.equal(across.status, 200);
    t.equal(across.body.data.visitors.value, 3, "silver: b here, a and d there (the other project's traits)");
    t.equal(across.body.data.pageviews.value, 1 + 3 + 2, "b's /p1 here; a's /s1, /p1, /p2 and d's /p4, /p5 there");
  },
);

t.test('with the list and without it, reads answer the same', async (t) => {
  const cases: Filter[][] = [
    gold$,
    [{ dimension: 'trait:tier', value: 'silver', exclude: false }],
    [{ dimension: 'trait:seats', value: '5', exclude: false }],
    [...gold$, { dimension: 'page', value: '/p1', exclude: false }],
    [...gold$, { dimension: 'trait:seats', value: '5', exclude: true }],
  ];
  for (const filters of cases) {
    const label = filters.map((f) => `${f.dimension}=${f.exclude ? '!' : ''}${f.value}`).join(' & ');
    for (const [which, listed] of Object.entries(await readScope(sql, ['site'], params(filters)))) {
      t.ok(listed.sessions, `${label}: ${which} has a list`);
      const unlisted: Scope = { ...listed, sessions: undefined };
      t.same((await statsSql(sql, listed))[0], (await statsSql(sql, unlisted))[0], `${label}: ${which} stats`);
      const facts = (x: Scope) =>
        sql<{ k: string; time_on_page_ms: number | null }[]>`
          select k, time_on_page_ms from (${pageFactsSql(sql, x, sql`e.path`)}) f order by 1, 2`;
      t.same(await facts(listed), await facts(unlisted), `${label}: ${which} page facts`);
    }
  }
});

t.test('the plan finds the visitors through the traits index', async (t) => {
  const plan = await sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    return tx<{ 'QUERY PLAN': string }[]>`explain select id from visitors v
      where ${traitVisitorsSql(tx as unknown as Sql, ['site'], 'trait:tier', 'gold')!}`;
  });
  t.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /Bitmap Index Scan on visitors_traits/);
});

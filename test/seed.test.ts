// The seed generator against a fresh database: exactly the events asked for, and sessions and visitors
// rows that agree with those events the way the ingest flush would have made them.
import t from 'tap';
import { openDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { createProject } from '../src/db/projects.ts';
import { createLogger } from '../src/log.ts';
import { generateTraffic } from '../src/seed/generate.ts';
import { seedProject } from '../src/seed/index.ts';
import { issueFor } from '../src/ingest/error-issue.ts';
import { createTestDatabase } from './support/database.ts';

const testDb = await createTestDatabase();
t.teardown(() => testDb.drop());
const db = await openDatabase({
  databaseUrl: testDb.databaseUrl,
  dataDir: testDb.dataDir,
  log: createLogger('silent'),
  max: 2,
});
t.teardown(() => db.close());
await migrate(db.sql);
await createProject(db.sql, { id: 'seeded', name: 'seeded', visibility: 'private' });
const now = new Date('2025-06-15T12:00:00Z');
const result = await seedProject(db.sql, { projectId: 'seeded', events: 20_000, days: 30, now, embedded: db.embedded });
const { sql } = db;

t.test('prints the counts it stored', async (t) => {
  t.match(result, { project: 'seeded', events: 20_000, sessions: Number, visitors: Number, seconds: Number });
  const [c]: [{ events: number; sessions: number; visitors: number; speed: number }?] = await sql`
    select (select count(*) from events where project_id = 'seeded')::int as events,
      (select count(*) from sessions where project_id = 'seeded')::int as sessions,
      (select count(*) from visitors where project_id = 'seeded')::int as visitors,
      (select count(*) from speed_samples where project_id = 'seeded')::int as speed`;
  t.same(
    { events: c!.events, sessions: c!.sessions, visitors: c!.visitors },
    { events: 20_000, sessions: result.sessions, visitors: result.visitors },
  );
  t.ok(c!.speed > 0, 'speed samples');
});

t.test('leaves the events vacuumed, and every partition vacuumed again after 20,000 new rows (0088)', async (t) => {
  const parts = await sql<{ name: string; options: string[] | null; pages: number; visible: number }[]>`
    select c.relname as name, c.reloptions as options, c.relpages as pages, c.relallvisible as visible
    from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass`;
  const filled = parts.filter((p) => p.pages > 0);
  t.ok(filled.length >= 2, 'the seed filled two months');
  for (const p of filled) t.ok(p.visible > 0, `${p.name}: its pages are in the visibility map`);
  const [made] = await sql<{ name: string }[]>`select loupe_ensure_events_partition('2031-03-04T00:00:00Z') as name`;
  const [fresh] = await sql<
    { options: string[] }[]
  >`select reloptions as options from pg_class where relname = ${made!.name}`;
  for (const options of [...parts.map((p) => p.options), fresh!.options])
    t.same([...(options ?? [])].sort(), [
      'autovacuum_vacuum_insert_scale_factor=0',
      'autovacuum_vacuum_insert_threshold=20000',
    ]);
});

t.test('sessions agree with their events', async (t) => {
  const [d]: [{ n: number }?] = await sql`
    with e as (
      select session_id, min(visitor_id) as visitor_id, min(ts) as started_at, max(ts) as last_activity,
        count(*) filter (where name = 'pageview')::int as pageviews,
        count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error'))::int as events,
        (array_agg(path order by ts) filter (where name = 'pageview'))[1] as entry_page,
        (array_agg(path order by ts desc) filter (where name = 'pageview'))[1] as exit_page,
        min(ts) filter (where name = 'pageview') as entry_at, max(ts) filter (where name = 'pageview') as exit_at,
        min(country) as country, min(channel) as channel, min(environment) as environment, bool_or(is_internal) as is_internal, max(bot_score) as bot_score
      from events where project_id = 'seeded' group by session_id
    )
    select count(*)::int as n from e full join (select * from sessions where project_id = 'seeded') s on s.id = e.session_id
    where s.id is null or e.session_id is null or s.visitor_id <> e.visitor_id or s.started_at <> e.started_at
      or s.last_activity <> e.last_activity or s.pageviews <> e.pageviews or s.events <> e.events
      or s.entry_page is distinct from e.entry_page or s.exit_page is distinct from e.exit_page or s.country <> e.country
      or s.entry_at is distinct from e.entry_at or s.exit_at is distinct from e.exit_at
      or s.channel <> e.channel or s.environment <> e.environment or s.is_internal <> e.is_internal or s.bot_score <> e.bot_score`;
  t.equal(d!.n, 0, 'no session differs from its events');
});

t.test('visitors agree with their events', async (t) => {
  const [d]: [{ n: number }?] = await sql`
    with e as (select visitor_id, min(ts) as first_seen, max(ts) as last_seen, max(bot_score) as bot_score, bool_or(is_internal) as is_internal
      from events where project_id = 'seeded' group by visitor_id)
    select count(*)::int as n from e full join (select * from visitors where project_id = 'seeded') v on v.id = e.visitor_id
    where v.id is null or e.visitor_id is null or v.first_seen <> e.first_seen or v.last_seen <> e.last_seen
      or v.bot_score <> e.bot_score or v.is_internal <> e.is_internal`;
  t.equal(d!.n, 0, 'no visitor differs from their events');
});

t.test('looks like traffic: the span, bots, internal, preview, custom events with props', async (t) => {
  const [m]: [
    {
      first: Date;
      last: Date;
      days: number;
      bots: number;
      internal: number;
      preview: number;
      visitors: number;
      sessions: number;
    }?,
  ] = await sql`
    select min(ts) as first, max(ts) as last, count(distinct date_trunc('day', ts))::int as days,
      (select count(*) from visitors where project_id = 'seeded' and bot_score >= 50)::int as bots,
      (select count(*) from visitors where project_id = 'seeded' and is_internal)::int as internal,
      (select count(*) from sessions where project_id = 'seeded' and environment = 'preview')::int as preview,
      (select count(*) from visitors where project_id = 'seeded')::int as visitors,
      (select count(*) from sessions where project_id = 'seeded')::int as sessions
    from events where project_id = 'seeded'`;
  t.ok(
    m!.first.getTime() >= now.getTime() - 31 * 86_400_000 && m!.last.getTime() < now.getTime(),
    'within the last 30 days',
  );
  t.ok(m!.days >= 30, `every day has traffic (${m!.days})`);
  const share = (n: number, of: number) => n / of;
  t.ok(
    share(m!.bots, m!.visitors) > 0.01 && share(m!.bots, m!.visitors) < 0.06,
    `about 3% bots (${m!.bots}/${m!.visitors})`,
  );
  t.ok(m!.internal > 0 && share(m!.internal, m!.visitors) < 0.03, `about 1% internal (${m!.internal})`);
  t.ok(
    share(m!.preview, m!.sessions) > 0.005 && share(m!.preview, m!.sessions) < 0.05,
    `about 2% preview (${m!.preview}/${m!.sessions})`,
  );
  const names: { name: string; n: number; with_props: number }[] = await sql`
    select name, count(*)::int as n, count(*) filter (where props <> '{}')::int as with_props
    from events where project_id = 'seeded' group by name order by name`;
  const by = Object.fromEntries(names.map((r) => [r.name, r]));
  for (const name of ['pageview', 'engagement', 'speed', 'signup', 'purchase', 'cta_click'])
    t.ok(by[name]?.n, `${name} events`);
  t.equal(by.signup!.with_props, by.signup!.n, 'every signup has {plan}');
  t.equal(by.purchase!.with_props, by.purchase!.n, 'every purchase has {amount}');
  t.ok(by.pageview!.n > 20_000 * 0.3, 'pageviews are the bulk');
});

t.test("the JSON writer (embedded PGlite's) stores what the generator made, as the main seed did", async (t) => {
  await createProject(sql, { id: 'seeded-json', name: 'seeded-json', visibility: 'private' });
  await seedProject(sql, { projectId: 'seeded-json', events: 20_000, days: 30, now, embedded: true });
  // Ids carry each run's id: everything else must match, jsonb members included.
  const fingerprint = async (project: string) =>
    (
      await sql<{ events: string; sessions: string; visitors: string; speed: string }[]>`
    select
      (select md5(string_agg(concat_ws('|', ts, name, path, title, referrer_domain, channel, country, browser, device, props::text,
        groups::text, environment, is_internal, bot_score), ',' order by ts, name, path, props::text))
        from events where project_id = ${project}) as events,
      (select md5(string_agg(concat_ws('|', started_at, last_activity, pageviews, events, entry_page, exit_page, channel),
        ',' order by started_at, last_activity, pageviews, entry_page)) from sessions where project_id = ${project}) as sessions,
      (select md5(string_agg(concat_ws('|', first_seen, last_seen, traits::text, groups::text, experiments::text, bot_score,
        bot_signals::text, is_internal), ',' order by first_seen, last_seen, traits::text)) from visitors where project_id = ${project}) as visitors,
      (select md5(string_agg(concat_ws('|', ts, lcp, inp, cls, path), ',' order by ts, lcp, path)) from speed_samples where project_id = ${project}) as speed`
    ).map((r) => ({ ...r }))[0]!;
  const main = await fingerprint('seeded'); // COPY on PostgreSQL, this same writer on PGlite
  t.ok(main.events && main.sessions && main.visitors && main.speed, 'the main seed has rows of every kind');
  t.same(await fingerprint('seeded-json'), main, 'events, sessions, visitors and speed samples alike');

  // And against the generator itself, on either database: the jsonb members (props, traits) as made.
  const made = { props: new Map<string, number>(), traits: new Map<string, number>() };
  const count = (m: Map<string, number>, x: unknown) => m.set(canonical(x), (m.get(canonical(x)) ?? 0) + 1);
  for (const v of generateTraffic({ events: 20_000, days: 30, now, seed: 1, runId: 'x' })) {
    count(made.traits, v.traits);
    for (const s of v.sessions) for (const e of s.events) count(made.props, e.props ?? {});
  }
  const stored = { props: new Map<string, number>(), traits: new Map<string, number>() };
  for (const r of await sql<{ props: unknown }[]>`select props from events where project_id = 'seeded-json'`)
    count(stored.props, r.props);
  for (const r of await sql<{ traits: unknown }[]>`select traits from visitors where project_id = 'seeded-json'`)
    count(stored.traits, r.traits);
  t.same(sorted(stored.props), sorted(made.props), "every event's props, as generated");
  t.same(sorted(stored.traits), sorted(made.traits), "every visitor's traits, as generated");
});

/** JSON with keys in order, so objects that jsonb stored with its own key order compare equal. */
const canonical = (x: unknown): string =>
  JSON.stringify(x, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

t.test('seeded errors open and count issues as ingest does', async (t) => {
  const errors = await sql<{ props: Record<string, unknown>; issue_id: string | null; bot_score: number }[]>`
    select props, issue_id, bot_score from events where project_id = 'seeded' and name = 'error'`;
  t.ok(errors.length > 0, `${errors.length} error events seeded`);
  for (const e of errors) {
    const expected = issueFor(e.props, e.bot_score, false)?.issue_id ?? null;
    if (e.issue_id !== expected) t.fail(`an error event's issue is ${e.issue_id}, ingest names it ${expected}`);
  }
  const issues = await sql<{ id: string; count: number; status: string; title: string; last_release: string | null }[]>`
    select id, count, status, title, last_release from issues where project_id = 'seeded' order by id`;
  const counted = new Map<string, number>();
  for (const e of errors) if (e.issue_id) counted.set(e.issue_id, (counted.get(e.issue_id) ?? 0) + 1);
  t.ok(issues.length >= 2, `${issues.length} issues opened`);
  t.same(
    issues.map((i) => [i.id, i.count]),
    [...counted].sort(([a], [b]) => (a < b ? -1 : 1)),
    "each issue's count is its error events",
  );
  t.ok(
    issues.every((i) => i.status === 'open' && i.last_release !== null),
    'open, with releases',
  );
  t.ok(
    issues.some((i) => /Cannot read properties of undefined/.test(i.title)),
    'titled from the error',
  );
});

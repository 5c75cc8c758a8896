// The event store's one flush path (src/db/flush-plan.ts), on PostgreSQL and embedded PGlite alike: every
// event is stored once, a retry is answered as duplicates and written again without them, the journal
// entry, log lines, speed samples and issues go in the same transaction, a deleted project writes nothing,
// and every value comes back as sent through the flush's text form (tabs, line breaks, backslashes, \N),
// by COPY FROM STDIN (PostgreSQL) and by insert_events.sql (embedded PGlite) alike. On PostgreSQL the plan
// is run by the flush writer (src/db/wire), as the server runs it by default, or by the `postgres` client
// when TEST_FLUSH_EXECUTOR=client (event-store-client.test.ts).
import t from 'tap';
import { createEventStore } from '../../src/db/event-store.ts';
import { createWireExecutor } from '../../src/db/wire/flush-executor.ts';
import { createProject } from '../../src/db/projects.ts';
import { EVENT_MARKS_PER_DAY } from '../../src/db/rollup-marks.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const wire = db.embedded || process.env.TEST_FLUSH_EXECUTOR === 'client' ? undefined : createWireExecutor(db.sql);
t.teardown(() => wire?.close());
const store = createEventStore(db.sql, { owner: 'test', embedded: db.embedded, writer: wire?.run });
t.comment(`the plan is run by the ${wire ? 'flush writer' : 'postgres client'}`);
await store.ensurePartition(new Date());
for (const id of ['p150', 'p40', 'pdup', 'prace']) await createProject(db.sql, { id, name: id, visibility: 'private' });
const noLines = () => ({ logs: [], counters: { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 } });
const now = Date.now();
const events = (project: string, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    enrichedRow({
      project_id: project,
      id: `${prefix}${i}`,
      visitor_id: `v${i % 7}`,
      session_id: `s${i % 7}`,
      path: `/p\t${i}\n`,
      props: { n: i, note: 'back\\slash "quoted"\ttab' },
      title: i % 2 ? null : 'Ünïcödé',
      ts: new Date(now - i * 1000).toISOString(),
      groups: { company: `c${i % 3}` },
      user_id: i % 4 ? null : `u${i}`,
      release: 'web@1.2.3',
      utm_source: i % 2 ? 'news' : null,
      referrer: 'https://ref.example/a\\b',
      channel: 'Referral',
      is_internal: i % 5 === 0,
      is_localhost: i % 6 === 0,
      bot_score: i % 100,
      issue_id: i % 9 ? null : 'iss_x',
      environment: i % 2 ? 'production' : 'preview',
      screen: '390x844',
    }),
  );
const count = async (table: string, project: string) =>
  (await db.sql.unsafe(`select count(*)::int as n from ${table} where project_id = $1`, [project]))[0]!.n as number;

for (const size of [150, 40]) {
  t.test(`${size} events: each stored once; a retry stores only what is new`, async (t) => {
    const project = `p${size}`;
    const a = await store.commit(project, events(project, 'e', size), noLines);
    t.equal(a.inserted.size, size, 'every event stored');
    const retry = [...events(project, 'e', size).slice(0, 20), ...events(project, 'new', 10)];
    const b = await store.commit(project, retry, noLines);
    t.same(
      [...b.inserted].sort(),
      events(project, 'new', 10)
        .map((e) => e.id)
        .sort(),
      'the retried events are duplicates',
    );
    t.equal(await count('events', project), size + 10, 'nothing twice');
    t.equal(await count('ingest_dedup', project), size + 10, 'a key an event');
  });
}

t.test('log lines, the journal entry, speed samples and issues, in the one transaction', async (t) => {
  await createProject(db.sql, { id: 'pw2', name: 'pw2', visibility: 'private' });
  const rows = [
    enrichedRow({
      project_id: 'pw2',
      id: 'sp',
      name: 'speed',
      visitor_id: 'v1',
      session_id: 's1',
      lcp: 1234.5,
      cls: 0.05,
      path: '/a',
    }),
    enrichedRow({
      project_id: 'pw2',
      id: 'er',
      name: 'error',
      visitor_id: 'v1',
      session_id: 's1',
      issue_id: 'iss_w',
      issue_title: 'TypeError: x',
      issue_culprit: 'app.js',
      issue_type: 'TypeError',
      issue_level: 'error',
      release: 'web@1',
    }),
    enrichedRow({ project_id: 'pw2', id: 'pv', name: 'pageview', visitor_id: 'v2', session_id: 's2', path: '/b' }),
  ];
  const line = {
    level: 'ok' as const,
    kind: 'ingest' as const,
    source: 'api' as const,
    visitor: null,
    session: null,
    message: 'Accepted 3 of 3',
    data: { n: 3 },
  };
  const done = await store.commit('pw2', rows, () => ({
    logs: [line, { ...line, message: 'second\twith a tab' }],
    counters: { accepted: 3, duplicates: 0, rejected: 0, rateLimited: 0 },
  }));
  t.equal(done.logs.length, 2);
  t.ok(Number(done.logs[1]!.id) > Number(done.logs[0]!.id), 'line ids in order');
  t.match(done.logs[0]!.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'line times as ISO 8601');
  const stored = await db.sql<
    { id: string; ts: Date; message: string }[]
  >`select id::text, ts, message from logs where project_id = 'pw2' order by id`;
  t.same(
    stored.map((l) => [l.id, l.ts.toISOString(), l.message]),
    done.logs.map((l) => [l.id, l.ts, l.message]),
    'the lines as stored',
  );
  t.same(done.fold?.sessions.map((s) => s.id).sort(), ['s1', 's2'], 'the journal entry carries the sessions');
  t.equal(done.fold?.counters?.accepted, 3, 'and the counts');
  const [journal] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from fold_journal where id = ${done.fold!.journalId}`;
  t.equal(journal!.n, 1, 'its row is stored under the id answered');
  const [speed] = await db.sql<
    { lcp: number; cls: number }[]
  >`select lcp, cls from speed_samples where project_id = 'pw2'`;
  t.same({ ...speed }, { lcp: 1234.5, cls: 0.05 });
  const [issue] = await db.sql<
    { title: string; count: number }[]
  >`select title, count::int from issues where project_id = 'pw2' and id = 'iss_w'`;
  t.same({ ...issue }, { title: 'TypeError: x', count: 1 });
  const marks = await db.sql<{ event_id: string | null }[]>`
    select event_id from rollup_stale_days where project_id = 'pw2' order by event_id`;
  // Today is built too, so each of a few events written into it is marked, as a late event into a past
  // day is (test/query/rollup-late.test.ts reads them).
  t.equal(marks.length, rows.length, "each of today's events is marked");
  t.ok(
    marks.every((m) => m.event_id !== null),
    'one by one, not the day as a whole',
  );
});

t.test('the rollup marks a flush writes: one by one up to EVENT_MARKS_PER_DAY a day, else the day whole', async (t) => {
  await createProject(db.sql, { id: 'pmarks', name: 'pmarks', visibility: 'private' });
  const rows = (prefix: string, n: number, ts: (i: number) => number) =>
    Array.from({ length: n }, (_, i) =>
      enrichedRow({
        project_id: 'pmarks',
        id: `${prefix}${i}`,
        visitor_id: `v${i % 7}`,
        session_id: `${prefix}-s${i % 7}`,
        ts: new Date(ts(i)).toISOString(),
      }),
    );
  const marksOf = async (day: string) =>
    (
      await db.sql<{ events: number; whole: number }[]>`
        select count(*) filter (where event_id is not null)::int as events,
          count(*) filter (where event_id is null and session_id is null)::int as whole
        from rollup_stale_days where project_id = 'pmarks' and day = ${day}::date`
    )[0]!;
  const at = Date.now();
  const today = new Date(at).toISOString().slice(0, 10);
  await store.commit(
    'pmarks',
    rows('live', EVENT_MARKS_PER_DAY, (i) => at - i),
    noLines,
  );
  t.same({ ...(await marksOf(today)) }, { events: EVENT_MARKS_PER_DAY, whole: 0 }, "today's events one by one");
  await store.commit(
    'pmarks',
    rows('bulk', EVENT_MARKS_PER_DAY + 1, (i) => at - i),
    noLines,
  );
  t.same({ ...(await marksOf(today)) }, { events: EVENT_MARKS_PER_DAY, whole: 1 }, 'one more: today marked whole');
  const past = Date.parse(`${today}T12:00:00Z`) - 3 * 86_400_000;
  const pastDay = new Date(past).toISOString().slice(0, 10);
  await store.ensurePartition(new Date(past));
  await store.commit(
    'pmarks',
    rows('late', EVENT_MARKS_PER_DAY, (i) => past + i),
    noLines,
  );
  t.same({ ...(await marksOf(pastDay)) }, { events: EVENT_MARKS_PER_DAY, whole: 0 }, "a past day's one by one");
  await store.commit(
    'pmarks',
    rows('backfill', EVENT_MARKS_PER_DAY + 1, (i) => past + i),
    noLines,
  );
  t.same({ ...(await marksOf(pastDay)) }, { events: EVENT_MARKS_PER_DAY, whole: 1 }, 'one more: the day whole');
});

t.test("after a retried event, what is committed is the second write's answer alone", async (t) => {
  await createProject(db.sql, { id: 'pw5', name: 'pw5', visibility: 'private' });
  await store.commit('pw5', events('pw5', 'r', 5), noLines);
  const asked: number[] = [];
  const line = (n: number) => ({
    level: 'ok' as const,
    kind: 'ingest' as const,
    source: 'api' as const,
    visitor: null,
    session: null,
    message: `Accepted ${n}`,
    data: { n },
  });
  const retry = [...events('pw5', 'r', 5).slice(0, 2), ...events('pw5', 's', 3)];
  const done = await store.commit('pw5', retry, (inserted) => {
    asked.push(inserted.size);
    return {
      logs: [line(inserted.size)],
      counters: { accepted: inserted.size, duplicates: retry.length - inserted.size, rejected: 0, rateLimited: 0 },
    };
  });
  t.same(asked, [5, 3], 'asked as if every event were new, then with the events whose keys were not stored');
  t.same(
    done.logs.map((l) => l.message),
    ['Accepted 3'],
    'the lines of the second answer',
  );
  t.same([done.fold?.counters?.accepted, done.fold?.counters?.duplicates], [3, 2], 'and its counts');
  const stored = await db.sql<{ message: string }[]>`select message from logs where project_id = 'pw5' order by id`;
  t.same(
    stored.map((l) => l.message),
    ['Accepted 3'],
    "the first write's line was rolled back with it",
  );
});

t.test('an id twice in one flush is stored once', async (t) => {
  const [a, b] = events('pdup', 'd', 2);
  const done = await store.commit('pdup', [a!, b!, { ...a!, path: '/second' }], noLines);
  t.same([...done.inserted].sort(), ['d0', 'd1']);
  const rows = await db.sql<{ path: string }[]>`select path from events where project_id = 'pdup' and id = 'd0'`;
  t.same(
    rows.map((r) => r.path),
    [a!.path],
    'the first one',
  );
});

t.test('two flushes of the same events at once: each stored once, by one of them', async (t) => {
  // The other one through the `postgres` client: the two executors' writes meet on the same keys.
  const other = createEventStore(db.sql, { owner: 'other', embedded: db.embedded });
  const batch = events('prace', 'c', 30);
  const [x, y] = await Promise.all([store.commit('prace', batch, noLines), other.commit('prace', batch, noLines)]);
  t.equal(x.inserted.size + y.inserted.size, 30, 'the ids split between them');
  t.equal(await count('events', 'prace'), 30);
});

t.test('a flush the database refuses fails at once, keeps nothing, and leaves the store usable', async (t) => {
  await createProject(db.sql, { id: 'pbad', name: 'pbad', visibility: 'private' });
  // jsonb refuses \u0000: the events' COPY (or statement) fails after every row was sent.
  const bad = enrichedRow({ project_id: 'pbad', id: 'b1', props: { s: '\u0000' } });
  await t.rejects(store.commit('pbad', [...events('pbad', 'ok', 3), bad], noLines));
  t.equal(await count('events', 'pbad'), 0, 'nothing kept');
  t.equal((await store.commit('pbad', events('pbad', 'ok', 3), noLines)).inserted.size, 3, 'the next flush is stored');
});

t.test('a project deleted while a flush waits on it answers not found, and nothing is kept', async (t) => {
  await createProject(db.sql, { id: 'pw6', name: 'pw6', visibility: 'private' });
  const deletion = await db.sql.reserve();
  let settled = false;
  let flush: Promise<unknown> | undefined;
  try {
    await deletion`begin`;
    await deletion`select id from projects where id = 'pw6' for update`; // what a deletion does first
    flush = store.commit('pw6', events('pw6', 'x', 3), noLines).finally(() => (settled = true));
    flush.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    t.notOk(settled, 'the flush waits for the project the deletion holds');
    await deletion`select loupe_delete_project_rows('pw6')`;
    await deletion`delete from projects where id = 'pw6'`;
    await deletion`commit`;
  } finally {
    deletion.release();
  }
  await t.rejects(flush!, { code: 'NOT_FOUND' });
  const [left] = await db.sql<{ events: number; journal: number; logs: number }[]>`
    select (select count(*)::int from events where project_id = 'pw6') as events,
      (select count(*)::int from fold_journal where project_id = 'pw6') as journal,
      (select count(*)::int from logs where project_id = 'pw6') as logs`;
  t.same({ ...left }, { events: 0, journal: 0, logs: 0 }, 'nothing of the project written after its deletion');
});

t.test('a writer that could not send the plan (no connection): the client writes it instead', async (t) => {
  await createProject(db.sql, { id: 'punsent', name: 'punsent', visibility: 'private' });
  let asked = 0;
  const down = createEventStore(db.sql, {
    owner: 'test',
    embedded: db.embedded,
    writer: () => (asked++, Promise.reject(Object.assign(new Error('no connection'), { unsent: true }))),
  });
  t.equal((await down.commit('punsent', events('punsent', 'u', 5), noLines)).inserted.size, 5);
  t.equal(asked, 1, 'the writer was asked first');
  t.equal(await count('events', 'punsent'), 5, 'stored once');
  const refused = createEventStore(db.sql, {
    owner: 'test',
    embedded: db.embedded,
    writer: () => Promise.reject(Object.assign(new Error('sent, then lost'), { code: 'CONNECTION_CLOSED' })),
  });
  await t.rejects(
    refused.commit('punsent', events('punsent', 'w', 2), noLines),
    /sent, then lost/,
    'a sent plan is not run again',
  );
  t.equal(await count('events', 'punsent'), 5);
});

t.test('a project deleted before the flush answers not found, and nothing is kept', async (t) => {
  await createProject(db.sql, { id: 'pw3', name: 'pw3', visibility: 'private' });
  await db.sql`delete from projects where id = 'pw3'`;
  await t.rejects(store.commit('pw3', events('pw3', 'x', 3), noLines), {
    code: 'NOT_FOUND',
    message: 'Project pw3 not found.',
  });
  t.equal(await count('events', 'pw3'), 0);
});

// Every stored column but the project and received_at.
const COLUMNS = `ts, id, name, visitor_id, session_id, path, route, title, host, referrer, referrer_domain, channel,
  utm_source, utm_medium, utm_campaign, utm_term, utm_content, country, region, city, browser, browser_version, os,
  os_version, device, screen, viewport, language, connection, props, groups, user_id, release, environment,
  is_internal, is_localhost, bot_score, issue_id`;
const read = async (project: string) =>
  (await db.sql.unsafe(`select ${COLUMNS} from events where project_id = $1 order by id`, [project])).map((r) => ({
    ...r,
  }));

t.test('every value comes back as sent: escapes, \\N as text, unicode and control characters', async (t) => {
  await createProject(db.sql, { id: 'pesc', name: 'pesc', visibility: 'private' });
  const odd = [
    '\\N',
    '\\',
    'ends with \\',
    '\\\\N',
    'a\\tb (a backslash and a t)',
    'cr\r\nlf',
    '\t\n\r\\',
    '\u001d\u001e\u001f',
    '',
    'Ünïcödé 𝄞',
  ];
  const rows = odd.map((s, i) =>
    enrichedRow({
      project_id: 'pesc',
      id: `o${i}`,
      ts: new Date(now - i).toISOString(),
      title: s,
      path: `/${s}`,
      referrer: s,
      props: { s, [s]: 1 },
      user_id: i % 2 ? null : s,
    }),
  );
  t.equal((await store.commit('pesc', rows, noLines)).inserted.size, odd.length);
  const stored = await read('pesc');
  t.same(
    stored.map((r) => [r.title, r.path, r.referrer, r.props, r.user_id]),
    rows.map((e) => [e.title, e.path, e.referrer, e.props, e.user_id]),
  );
  t.equal(stored[0]!.title, '\\N', 'the text \\N is not a null');
});

// On PGlite both stores take the statement (its socket has no COPY FROM STDIN): the rows still must agree.
t.test(
  "the events' text sent as COPY (PostgreSQL) and as insert_events.sql's parameter (PGlite) stores the same rows",
  async (t) => {
    await createProject(db.sql, { id: 'pstmt', name: 'pstmt', visibility: 'private' });
    const statements = createEventStore(db.sql, { owner: 'test', embedded: true });
    t.equal((await statements.commit('pstmt', events('pstmt', 'e', 40), noLines)).inserted.size, 40);
    t.same(
      await read('pstmt'),
      (await read('p40')).filter((r) => (r.id as string).startsWith('e')),
    );
    const retry = await statements.commit('pstmt', [...events('pstmt', 'e', 3), ...events('pstmt', 'n', 2)], noLines);
    t.same([...retry.inserted].sort(), ['n0', 'n1'], 'a retry through the statement stores only what is new');
  },
);

t.test('speed samples: every value, nulls, the route falling back to the path', async (t) => {
  await createProject(db.sql, { id: 'psp', name: 'psp', visibility: 'private' });
  await store.commit(
    'psp',
    [
      enrichedRow({
        project_id: 'psp',
        id: 'sa',
        name: 'speed',
        lcp: 1234.5,
        inp: 88,
        cls: 0.1 + 0.2,
        fcp: 1e-7,
        ttfb: 0,
        element: 'img#hero "quoted"\t— ü \\',
        path: '/a',
        route: '/[slug]',
      }),
      enrichedRow({
        project_id: 'psp',
        id: 'sb',
        name: 'speed',
        lcp: Number.NaN,
        inp: null,
        cls: null,
        fcp: null,
        ttfb: null,
        element: null,
        path: '/b',
        route: null,
        device: null,
        country: null,
      }),
      enrichedRow({ project_id: 'psp', id: 'pv', name: 'pageview', path: '/c' }),
    ],
    noLines,
  );
  const rows = (
    await db.sql`select event_id, path, route, device, country, environment, lcp, inp, cls, fcp, ttfb, element, bot_score
      from speed_samples where project_id = 'psp' order by event_id`
  ).map((r) => ({ ...r }));
  t.same(rows, [
    {
      event_id: 'sa',
      path: '/a',
      route: '/[slug]',
      device: 'desktop',
      country: 'DE',
      environment: 'production',
      lcp: 1234.5,
      inp: 88,
      cls: 0.1 + 0.2,
      fcp: 1e-7,
      ttfb: 0,
      element: 'img#hero "quoted"\t— ü \\',
      bot_score: 0,
    },
    {
      event_id: 'sb',
      path: '/b',
      route: '/b',
      device: null,
      country: null,
      environment: 'production',
      lcp: null,
      inp: null,
      cls: null,
      fcp: null,
      ttfb: null,
      element: null,
      bot_score: 0,
    },
  ]);
});

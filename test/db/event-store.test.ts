// The event store's write paths: on PostgreSQL the flush writer's one pipeline (as if every event were new,
// written again the checked way when one was not); the checked way itself, big flushes (keys claimed, then
// COPY; PostgreSQL) and small ones (one statement; always on embedded PGlite). All store each event once,
// answer retries as duplicates, and store the same columns. The speed samples' two forms store the same rows.
import t from 'tap';
import { createEventStore, speedJson, speedLines, speedRows } from '../../src/db/event-store.ts';
import { separatedRows } from '../../src/db/event-copy.ts';
import { createProject } from '../../src/db/projects.ts';
import { query } from '../../src/db/queries.ts';
import { WRITER_SESSION, WRITER_STATEMENTS } from '../../src/db/speculative-flush.ts';
import { createWriterPool, writerOptions } from '../../src/db/wire/pool.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const store = createEventStore(db.sql, { owner: 'test', embedded: db.embedded });
await store.ensurePartition(new Date());
for (const id of ['p150', 'p40', 'pw']) await createProject(db.sql, { id, name: id, visibility: 'private' });
// The flush writer serves PostgreSQL only: on embedded PGlite the checked way is the one way.
const writer = db.embedded ? undefined : createWriterPool(writerOptions(db.sql, WRITER_SESSION), WRITER_STATEMENTS);
if (writer) t.teardown(() => writer.close());
const piped = writer && createEventStore(db.sql, { owner: 'test', writer });
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
      props: { n: i, note: 'back\\slash "quoted"' },
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

for (const [label, size] of [
  ['big flushes (COPY on PostgreSQL)', 150],
  ['small flushes (one statement)', 40],
] as const) {
  t.test(label, async (t) => {
    const project = `p${size}`;
    const first = events(project, 'e', size);
    const a = await store.commit(project, first, noLines);
    t.equal(a.inserted.size, size, 'every event stored');
    const retry = [...events(project, 'e', size), ...events(project, 'new', 10)];
    const b = await store.commit(project, retry, noLines);
    t.same(
      [...b.inserted].sort(),
      events(project, 'new', 10)
        .map((e) => e.id)
        .sort(),
      'a retry stores only what is new',
    );
    const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = ${project}`;
    t.equal(n, size + 10, 'nothing twice');
  });
}

if (piped) {
  t.test(
    'the flush writer: one pipeline stores every event; a retry goes the checked way and stores only what is new',
    async (t) => {
      const first = events('pw', 'e', 150);
      const a = await piped.commit('pw', first, noLines);
      t.equal(a.inserted.size, 150, 'every event stored');
      const retry = [...events('pw', 'e', 150).slice(0, 20), ...events('pw', 'new', 10)];
      const b = await piped.commit('pw', retry, noLines);
      t.same(
        [...b.inserted].sort(),
        events('pw', 'new', 10)
          .map((e) => e.id)
          .sort(),
        'the retried events are duplicates',
      );
      const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = 'pw'`;
      t.equal(n, 160, 'nothing twice');
    },
  );

  t.test(
    'the flush writer: log lines, the journal entry, speed samples and issues, as the checked way writes them',
    async (t) => {
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
      const done = await piped.commit('pw2', rows, () => ({
        logs: [line, { ...line, message: 'second' }],
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
    },
  );

  t.test("the flush writer: after a retried event, what is committed is the checked way's answer alone", async (t) => {
    await createProject(db.sql, { id: 'pw5', name: 'pw5', visibility: 'private' });
    await piped.commit('pw5', events('pw5', 'r', 5), noLines);
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
    const done = await piped.commit('pw5', retry, (inserted) => {
      asked.push(inserted.size);
      return {
        logs: [line(inserted.size)],
        counters: { accepted: inserted.size, duplicates: retry.length - inserted.size, rejected: 0, rateLimited: 0 },
      };
    });
    t.same(asked, [5, 3], 'asked as if every event were new, then with what the keys showed new');
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
      "the first attempt's line was rolled back with it",
    );
  });

  t.test(
    'the flush writer: a project deleted while a flush waits on it answers not found, and nothing is kept',
    async (t) => {
      await createProject(db.sql, { id: 'pw6', name: 'pw6', visibility: 'private' });
      const deletion = await db.sql.reserve();
      let settled = false;
      let flush: Promise<unknown> | undefined;
      try {
        await deletion`begin`;
        await deletion`select id from projects where id = 'pw6' for update`; // what a deletion does first
        flush = piped.commit('pw6', events('pw6', 'x', 3), noLines).finally(() => (settled = true));
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
    },
  );

  t.test(
    'a flush writer that cannot connect: flushes go the checked way, and connecting is tried again only later',
    async (t) => {
      const failures: unknown[] = [];
      const unreachable = createWriterPool(
        { ...writerOptions(db.sql, WRITER_SESSION), host: '127.0.0.1', port: 1, path: false },
        WRITER_STATEMENTS,
        {
          onOpenError: (err) => failures.push(err),
        },
      );
      t.teardown(() => unreachable.close());
      const store = createEventStore(db.sql, { owner: 'test', writer: unreachable });
      await createProject(db.sql, { id: 'pw4', name: 'pw4', visibility: 'private' });
      const a = await store.commit('pw4', events('pw4', 'u', 3), noLines);
      const b = await store.commit('pw4', events('pw4', 'v', 2), noLines);
      t.same([a.inserted.size, b.inserted.size], [3, 2], 'both stored');
      const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = 'pw4'`;
      t.equal(n, 5);
      t.equal(failures.length, 1, 'one connection attempt, reported once: the second flush did not wait on another');
    },
  );

  t.test('the flush writer: a project deleted before the flush answers not found, and nothing is kept', async (t) => {
    await createProject(db.sql, { id: 'pw3', name: 'pw3', visibility: 'private' });
    await db.sql`delete from projects where id = 'pw3'`;
    await t.rejects(piped.commit('pw3', events('pw3', 'x', 3), noLines), {
      code: 'NOT_FOUND',
      message: 'Project pw3 not found.',
    });
    const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = 'pw3'`;
    t.equal(n, 0);
  });
}

t.test('every path stores the same columns', async (t) => {
  // Every stored column but the project and received_at.
  const read = (project: string) => db.sql`
    select ts, id, name, visitor_id, session_id, path, route, title, host, referrer, referrer_domain, channel, utm_source,
      utm_medium, utm_campaign, utm_term, utm_content, country, region, city, browser, browser_version, os, os_version,
      device, screen, viewport, language, connection, props, groups, user_id, release, environment, is_internal,
      is_localhost, bot_score, issue_id
    from events where project_id = ${project} and id like 'e%' order by id`;
  const [big, small] = [await read('p150'), await read('p40')];
  const ids = new Set(small.map((r) => r.id));
  t.same(
    big.filter((r) => ids.has(r.id)).map((r) => ({ ...r })),
    small.map((r) => ({ ...r })),
  );
  if (piped)
    t.same(
      (await read('pw')).map((r) => ({ ...r })),
      big.map((r) => ({ ...r })),
      "the flush writer's too",
    );
  t.same(small[1]!.props, { n: 1, note: 'back\\slash "quoted"' });
  t.equal(small[0]!.path, '/p\t0\n');
});

t.test("a small flush whose values hold the text form's separators goes as JSON and keeps them", async (t) => {
  await createProject(db.sql, { id: 'psep', name: 'psep', visibility: 'private' });
  const plain = events('psep', 'plain', 3);
  t.ok(separatedRows(plain), 'plain rows go as text');
  const odd = [
    enrichedRow({
      project_id: 'psep',
      id: 'sep1',
      title: 'a\u001fb',
      path: '/x\u001ey',
      ts: new Date(now).toISOString(),
    }),
    enrichedRow({
      project_id: 'psep',
      id: 'sep2',
      title: '\u001d',
      referrer: 'r\u001dr',
      ts: new Date(now - 1000).toISOString(),
    }),
  ];
  for (const e of odd) t.equal(separatedRows([...plain, e]), null, `${e.id} goes as JSON`);
  t.equal(separatedRows([enrichedRow({ title: null, path: '' })])?.split('\u001f').length, 38, 'one field a column');
  const stored = await store.commit('psep', [...plain, ...odd], noLines);
  t.equal(stored.inserted.size, 5, 'every event stored');
  const rows = await db.sql<{ id: string; title: string | null; path: string | null; referrer: string | null }[]>`
    select id, title, path, referrer from events where project_id = 'psep' and id like 'sep%' order by id`;
  t.same(
    rows.map((r) => ({ ...r })),
    [
      { id: 'sep1', title: 'a\u001fb', path: '/x\u001ey', referrer: odd[0]!.referrer },
      { id: 'sep2', title: '\u001d', path: odd[1]!.path, referrer: 'r\u001dr' },
    ],
    'the values as sent, a lone U+001D included (not read as null)',
  );
});

t.test(
  'speed samples store the same as separated text and as JSON; a value holding a separator goes as JSON',
  async (t) => {
    const speed = (project: string) => [
      enrichedRow({
        project_id: project,
        id: 'sa',
        name: 'speed',
        lcp: 1234.5,
        inp: 88,
        cls: 0.1 + 0.2,
        fcp: 1e-7,
        ttfb: 0,
        element: 'img#hero "quoted" — ü',
        path: '/a',
        route: '/[slug]',
      }),
      enrichedRow({
        project_id: project,
        id: 'sb',
        name: 'speed',
        lcp: null,
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
      enrichedRow({ project_id: project, id: 'pv', name: 'pageview', path: '/c' }),
    ];
    const read = async (project: string) =>
      (
        await db.sql`select event_id, path, route, device, country, environment, lcp, inp, cls, fcp, ttfb, element, bot_score
    from speed_samples where project_id = ${project} order by event_id`
      ).map((r) => ({ ...r }));
    const text = speedRows(speed('sp-text'))!;
    t.ok(text[0] !== null && text[1] === null, 'sent as text');
    await query(db.sql, 'insert_speed_samples', text);
    await query(db.sql, 'insert_speed_samples', [null, speedJson(speed('sp-json').filter((e) => e.name === 'speed'))]);
    const [a, b] = [await read('sp-text'), await read('sp-json')];
    t.equal(a.length, 2, 'the speed events only');
    t.same(
      a.map(({ event_id: _e, ...r }) => r),
      b.map(({ event_id: _e, ...r }) => r),
    );
    t.same(a[0], {
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
      element: 'img#hero "quoted" — ü',
      bot_score: 0,
    });
    t.same(
      a[1],
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
      'nulls stay null; the route falls back to the path',
    );
    const odd = [enrichedRow({ project_id: 'sp-sep', id: 'sx', name: 'speed', lcp: 1, element: 'div\u001fspan' })];
    t.equal(speedLines(odd), null);
    const [asText, asJson] = speedRows(odd)!;
    t.ok(asText === null && asJson !== null, 'sent as JSON');
    await query(db.sql, 'insert_speed_samples', [asText, asJson]);
    t.same(
      (await read('sp-sep')).map((r) => r.element),
      ['div\u001fspan'],
    );
  },
);

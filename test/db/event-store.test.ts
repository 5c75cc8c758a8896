// The event store's two write paths, big flushes (keys claimed, then COPY; PostgreSQL) and small ones
// (one statement; always on embedded PGlite): both store each event once, answer retries as duplicates,
// and store the same columns.
import t from 'tap';
import { createEventStore } from '../../src/db/event-store.ts';
import { separatedRows } from '../../src/db/event-copy.ts';
import { createProject } from '../../src/db/projects.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const store = createEventStore(db.sql, { owner: 'test', embedded: db.embedded });
await store.ensurePartition(new Date());
for (const id of ['p150', 'p40']) await createProject(db.sql, { id, name: id, visibility: 'private' });
const noLines = () => ({ logs: [], counters: { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 } });
const now = Date.now();
const events = (project: string, prefix: string, n: number) => Array.from({ length: n }, (_, i) => enrichedRow({
  project_id: project, id: `${prefix}${i}`, visitor_id: `v${i % 7}`, session_id: `s${i % 7}`, path: `/p\t${i}\n`,
  props: { n: i, note: 'back\\slash "quoted"' }, title: i % 2 ? null : 'Ünïcödé', ts: new Date(now - i * 1000).toISOString(),
  groups: { company: `c${i % 3}` }, user_id: i % 4 ? null : `u${i}`, release: 'web@1.2.3', utm_source: i % 2 ? 'news' : null,
  referrer: 'https://ref.example/a\\b', channel: 'Referral', is_internal: i % 5 === 0, is_localhost: i % 6 === 0, bot_score: i % 100,
  issue_id: i % 9 ? null : 'iss_x', environment: i % 2 ? 'production' : 'preview', screen: '390x844',
}));

for (const [label, size] of [['big flushes (COPY on PostgreSQL)', 150], ['small flushes (one statement)', 40]] as const) {
  t.test(label, async (t) => {
    const project = `p${size}`;
    const first = events(project, 'e', size);
    const a = await store.commit(project, first, noLines);
    t.equal(a.inserted.size, size, 'every event stored');
    const retry = [...events(project, 'e', size), ...events(project, 'new', 10)];
    const b = await store.commit(project, retry, noLines);
    t.same([...b.inserted].sort(), events(project, 'new', 10).map((e) => e.id).sort(), 'a retry stores only what is new');
    const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = ${project}`;
    t.equal(n, size + 10, 'nothing twice');
  });
}

t.test('both paths store the same columns', async (t) => {
  // Every stored column but the project and received_at.
  const read = (project: string) => db.sql`
    select ts, id, name, visitor_id, session_id, path, route, title, host, referrer, referrer_domain, channel, utm_source,
      utm_medium, utm_campaign, utm_term, utm_content, country, region, city, browser, browser_version, os, os_version,
      device, screen, viewport, language, connection, props, groups, user_id, release, environment, is_internal,
      is_localhost, bot_score, issue_id
    from events where project_id = ${project} and id like 'e%' order by id`;
  const [big, small] = [await read('p150'), await read('p40')];
  const ids = new Set(small.map((r) => r.id));
  t.same(big.filter((r) => ids.has(r.id)).map((r) => ({ ...r })), small.map((r) => ({ ...r })));
  t.same(small[1]!.props, { n: 1, note: 'back\\slash "quoted"' });
  t.equal(small[0]!.path, '/p\t0\n');
});

t.test('a small flush whose values hold the text form\'s separators goes as JSON and keeps them', async (t) => {
  await createProject(db.sql, { id: 'psep', name: 'psep', visibility: 'private' });
  const plain = events('psep', 'plain', 3);
  t.ok(separatedRows(plain), 'plain rows go as text');
  const odd = [
    enrichedRow({ project_id: 'psep', id: 'sep1', title: 'a\u001fb', path: '/x\u001ey', ts: new Date(now).toISOString() }),
    enrichedRow({ project_id: 'psep', id: 'sep2', title: '\u001d', referrer: 'r\u001dr', ts: new Date(now - 1000).toISOString() }),
  ];
  for (const e of odd) t.equal(separatedRows([...plain, e]), null, `${e.id} goes as JSON`);
  t.equal(separatedRows([enrichedRow({ title: null, path: '' })])?.split('\u001f').length, 38, 'one field a column');
  const stored = await store.commit('psep', [...plain, ...odd], noLines);
  t.equal(stored.inserted.size, 5, 'every event stored');
  const rows = await db.sql<{ id: string; title: string | null; path: string | null; referrer: string | null }[]>`
    select id, title, path, referrer from events where project_id = 'psep' and id like 'sep%' order by id`;
  t.same(rows.map((r) => ({ ...r })), [
    { id: 'sep1', title: 'a\u001fb', path: '/x\u001ey', referrer: odd[0]!.referrer },
    { id: 'sep2', title: '\u001d', path: odd[1]!.path, referrer: 'r\u001dr' },
  ], 'the values as sent, a lone U+001D included (not read as null)');
});

// The checkpoint's promise: applying several flushes' deltas merged in memory (FoldMerge) gives the
// same sessions and visitors as applying each flush's deltas in turn with the upserts, on a real
// database, whatever order the events arrive in across flushes. And the upserts' text form (the flush's,
// src/db/flush-text.ts) stores every value as the deltas hold it.
import t, { type Test } from 'tap';
import { upsertSessions, upsertVisitors } from '../../src/db/fold-journal.ts';
import { FoldMerge, PendingFolds, sessionDeltas, visitorDeltas } from '../../actors/flush-rows.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const sql = db.sql;

let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const base = Date.parse('2026-11-01T10:00:00Z');

function flushes(n: number, size: number) {
  return Array.from({ length: n }, () =>
    Array.from({ length: size }, () => {
      const visitor = pick(['v1', 'v2', 'v3']);
      return enrichedRow({
        visitor_id: visitor,
        session_id: `${visitor}-${pick(['a', 'b'])}`,
        ts: new Date(base + Math.floor(rand() * 3_600_000)).toISOString(), // any order, across flushes too
        name: pick(['pageview', 'pageview', 'signup', 'engagement']),
        path: pick(['/', '/pricing', '/docs', null]),
        referrer: pick([null, 'https://news.example/']),
        country: pick(['DE', 'FR']),
        device: pick(['desktop', 'mobile']),
        bot_score: pick([0, 10, 60]),
        is_internal: rand() < 0.1,
        user_id: pick([null, 'u1', 'u2']),
        traits: pick([{}, { plan: 'pro' }, { plan: 'free', seats: 2 }]),
        experiments: pick<Record<string, string>>([{}, { hero: 'b' }]),
        screen: pick([null, '1920x1080']),
        bot_signals: {
          headless: rand() < 0.5,
          webdriver: null,
          datacenterAsn: false,
          pointerEvents: null,
          uaMismatch: null,
          uniformDwell: null,
        },
      });
    }),
  );
}

/** Asserts each delta's fields as stored (timestamps as ISO text). */
function sameAsDeltas(t: Test, stored: Record<string, unknown>[], deltas: readonly object[], what: string) {
  t.equal(stored.length, deltas.length, `${what}: one row a delta`);
  for (const d of deltas) {
    const row = stored.find((r) => r.id === (d as { id: string }).id);
    const asStored = Object.fromEntries(
      Object.keys(d).map((k) => [k, row?.[k] instanceof Date ? (row[k] as Date).toISOString() : row?.[k]]),
    );
    t.same(asStored, d, `${what} ${(d as { id: string }).id}`);
  }
}

const rows = async (project: string) => ({
  sessions: (await sql`select * from sessions where project_id = ${project} order by id`).map(
    ({ project_id: _p, ...r }) => r,
  ),
  visitors: (await sql`select * from visitors where project_id = ${project} order by id`).map(
    ({ project_id: _p, ...r }) => r,
  ),
});

t.test('merged deltas, applied once, equal each flush applied in turn', async (t) => {
  for (let round = 0; round < 5; round++) {
    const batches = flushes(6, 15);
    const [seq, merged] = [`seq${round}`, `merged${round}`];
    for (const batch of batches) {
      await upsertSessions(sql, seq, sessionDeltas(batch));
      await upsertVisitors(sql, seq, visitorDeltas(batch));
    }
    // Half the flushes were applied at an earlier checkpoint: merging must also add up onto stored rows.
    const [early, late] = [batches.slice(0, 3), batches.slice(3)];
    for (const part of [early, late]) {
      const m = new FoldMerge();
      for (const batch of part) m.add(sessionDeltas(batch), visitorDeltas(batch));
      await upsertSessions(sql, merged, m.sessionRows());
      await upsertVisitors(sql, merged, m.visitorRows());
    }
    const [a, b] = [await rows(seq), await rows(merged)];
    t.ok(a.sessions.length > 0 && a.visitors.length > 0);
    t.same(b.sessions, a.sessions, `round ${round}: sessions`);
    t.same(b.visitors, a.visitors, `round ${round}: visitors`);
  }
});

t.test("one flush's deltas, summed in place, equal its events applied one at a time", async (t) => {
  for (let round = 0; round < 5; round++) {
    const [batch] = flushes(1, 60);
    const [each, once] = [`each${round}`, `once${round}`];
    // Events apply in ts order one at a time (the ts order is what the deltas' rules follow within a flush).
    for (const e of [...batch!].sort((a, b) => (a.ts < b.ts ? -1 : 1))) {
      await upsertSessions(sql, each, sessionDeltas([e]));
      await upsertVisitors(sql, each, visitorDeltas([e]));
    }
    await upsertSessions(sql, once, sessionDeltas(batch!));
    await upsertVisitors(sql, once, visitorDeltas(batch!));
    const [a, b] = [await rows(each), await rows(once)];
    t.same(b.sessions, a.sessions, `round ${round}: sessions`);
    t.same(b.visitors, a.visitors, `round ${round}: visitors`);
  }
});

t.test(
  "held deltas appended to (a failed checkpoint's, then the flushes since) equal every flush fed in order",
  async (t) => {
    for (let round = 0; round < 5; round++) {
      const batches = flushes(6, 15);
      const entry = (batch: (typeof batches)[number], i: number) => ({
        journalId: String(i),
        sessions: sessionDeltas(batch),
        visitors: visitorDeltas(batch),
        counters: null,
      });
      const inOrder = PendingFolds.of(batches.map(entry));
      const cut = 1 + (round % 5);
      const failed = PendingFolds.of(batches.slice(0, cut).map(entry));
      failed.append(PendingFolds.of(batches.slice(cut).map((b, i) => entry(b, cut + i))));
      t.same(failed.journalIds, inOrder.journalIds, `round ${round}: journal ids in commit order`);
      t.same(failed.merged.sessionRows(), inOrder.merged.sessionRows(), `round ${round}: sessions`);
      t.same(failed.merged.visitorRows(), inOrder.merged.visitorRows(), `round ${round}: visitors`);
    }
  },
);

t.test('the text form stores every value as the deltas hold it', async (t) => {
  const odd = [
    // Nulls wherever a delta has them, and values text must carry exactly: floats, empty and non-ASCII
    // text, JSON members holding the separators (JSON escapes them) and quotes.
    enrichedRow({
      visitor_id: 'v-odd',
      session_id: 'v-odd-a',
      ts: '2026-11-01T10:00:00.123Z',
      name: 'signup',
      path: null,
      referrer: null,
      country: null,
      region: null,
      city: null,
      device: null,
      browser: null,
      os: null,
      user_id: null,
      screen: null,
      latitude: 48.856613,
      longitude: -122.41941550000001,
      postal_code: null,
      timezone: null,
    }),
    enrichedRow({
      visitor_id: 'v-üñï',
      session_id: 'v-üñï-a',
      ts: '2026-11-01T11:00:00.000Z',
      name: 'pageview',
      path: '',
      city: 'São Paulo — centro',
      latitude: 1e-7,
      longitude: 0,
      user_id: 'u "quoted" \\ backslash',
      traits: { note: 'tab\there \x1f\x1e\x1d', n: 2.5, nested: { a: [1, null] } },
      experiments: { hero: 'b' },
      bot_score: 60,
      is_internal: true,
      is_localhost: true,
    }),
  ];
  const batch = [...flushes(1, 40)[0]!, ...odd];
  const [sessions, visitors] = [sessionDeltas(batch), visitorDeltas(batch)];
  await upsertSessions(sql, 'as-text', sessions);
  await upsertVisitors(sql, 'as-text', visitors);
  const a = await rows('as-text');
  sameAsDeltas(t, a.sessions, sessions, 'session');
  sameAsDeltas(t, a.visitors, visitors, 'visitor');
  const stored = a.visitors.find((v) => v.id === 'v-üñï')!;
  t.equal(stored.city, 'São Paulo — centro');
  t.equal(stored.latitude, 1e-7);
  t.same(stored.traits, { note: 'tab\there \x1f\x1e\x1d', n: 2.5, nested: { a: [1, null] } });
  t.equal(a.visitors.find((v) => v.id === 'v-odd')!.longitude, -122.41941550000001);
});

t.test('values holding what the text form escapes are stored as they are', async (t) => {
  const batch = [
    enrichedRow({
      visitor_id: 'v-sep\tx',
      session_id: 'v-sep-a\\N',
      path: '/a\x1eb\\c\td\ne\rf',
      user_id: 'u\x1fv\\N',
      referrer: '\\N',
      traits: { 'k\t': 'v\\n\n' },
      ts: '2026-11-01T10:00:00.000Z',
    }),
  ];
  const [sessions, visitors] = [sessionDeltas(batch), visitorDeltas(batch)];
  await upsertSessions(sql, 'sep', sessions);
  await upsertVisitors(sql, 'sep', visitors);
  const stored = await rows('sep');
  t.equal(stored.sessions[0]!.entry_page, '/a\x1eb\\c\td\ne\rf');
  t.equal(stored.sessions[0]!.referrer, '\\N');
  t.equal(stored.visitors[0]!.user_id, 'u\x1fv\\N');
  sameAsDeltas(t, stored.sessions, sessions, 'session');
  sameAsDeltas(t, stored.visitors, visitors, 'visitor');
});

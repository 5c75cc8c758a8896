// The checkpoint's promise: applying several flushes' deltas merged in memory (FoldMerge) gives the
// same sessions and visitors as applying each flush's deltas in turn with the upserts, on a real
// database, whatever order the events arrive in across flushes.
import t from 'tap';
import { FoldMerge, PendingFolds, sessionDeltas, visitorDeltas } from '../../src/db/flush-rows.ts';
import { query } from '../../src/db/queries.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const sql = db.sql;

let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const base = Date.parse('2026-11-01T10:00:00Z');

function flushes(n: number, size: number) {
  return Array.from({ length: n }, () => Array.from({ length: size }, () => {
    const visitor = pick(['v1', 'v2', 'v3']);
    return enrichedRow({
      visitor_id: visitor, session_id: `${visitor}-${pick(['a', 'b'])}`,
      ts: new Date(base + Math.floor(rand() * 3_600_000)).toISOString(), // any order, across flushes too
      name: pick(['pageview', 'pageview', 'signup', 'engagement']), path: pick(['/', '/pricing', '/docs', null]),
      referrer: pick([null, 'https://news.example/']), country: pick(['DE', 'FR']), device: pick(['desktop', 'mobile']),
      bot_score: pick([0, 10, 60]), is_internal: rand() < 0.1, user_id: pick([null, 'u1', 'u2']),
      traits: pick([{}, { plan: 'pro' }, { plan: 'free', seats: 2 }]), experiments: pick<Record<string, string>>([{}, { hero: 'b' }]),
      screen: pick([null, '1920x1080']), bot_signals: { headless: rand() < 0.5, webdriver: null, datacenterAsn: false, pointerEvents: null, uaMismatch: null, uniformDwell: null },
    });
  }));
}

const rows = async (project: string) => ({
  sessions: (await sql`select * from sessions where project_id = ${project} order by id`).map(({ project_id: _p, ...r }) => r),
  visitors: (await sql`select * from visitors where project_id = ${project} order by id`).map(({ project_id: _p, ...r }) => r),
});

t.test('merged deltas, applied once, equal each flush applied in turn', async (t) => {
  for (let round = 0; round < 5; round++) {
    const batches = flushes(6, 15);
    const [seq, merged] = [`seq${round}`, `merged${round}`];
    for (const batch of batches) {
      await query(sql, 'upsert_sessions', [seq, JSON.stringify(sessionDeltas(batch))]);
      await query(sql, 'upsert_visitors', [seq, JSON.stringify(visitorDeltas(batch))]);
    }
    // Half the flushes were applied at an earlier checkpoint: merging must also add up onto stored rows.
    const [early, late] = [batches.slice(0, 3), batches.slice(3)];
    for (const part of [early, late]) {
      const m = new FoldMerge();
      for (const batch of part) m.add(sessionDeltas(batch), visitorDeltas(batch));
      await query(sql, 'upsert_sessions', [merged, JSON.stringify(m.sessionRows())]);
      await query(sql, 'upsert_visitors', [merged, JSON.stringify(m.visitorRows())]);
    }
    const [a, b] = [await rows(seq), await rows(merged)];
    t.ok(a.sessions.length > 0 && a.visitors.length > 0);
    t.same(b.sessions, a.sessions, `round ${round}: sessions`);
    t.same(b.visitors, a.visitors, `round ${round}: visitors`);
  }
});

t.test('one flush\'s deltas, summed in place, equal its events applied one at a time', async (t) => {
  for (let round = 0; round < 5; round++) {
    const [batch] = flushes(1, 60);
    const [each, once] = [`each${round}`, `once${round}`];
    // Events apply in ts order one at a time (the ts order is what the deltas' rules follow within a flush).
    for (const e of [...batch!].sort((a, b) => (a.ts < b.ts ? -1 : 1))) {
      await query(sql, 'upsert_sessions', [each, JSON.stringify(sessionDeltas([e]))]);
      await query(sql, 'upsert_visitors', [each, JSON.stringify(visitorDeltas([e]))]);
    }
    await query(sql, 'upsert_sessions', [once, JSON.stringify(sessionDeltas(batch!))]);
    await query(sql, 'upsert_visitors', [once, JSON.stringify(visitorDeltas(batch!))]);
    const [a, b] = [await rows(each), await rows(once)];
    t.same(b.sessions, a.sessions, `round ${round}: sessions`);
    t.same(b.visitors, a.visitors, `round ${round}: visitors`);
  }
});

t.test('held deltas appended to (a failed checkpoint\'s, then the flushes since) equal every flush fed in order', async (t) => {
  for (let round = 0; round < 5; round++) {
    const batches = flushes(6, 15);
    const entry = (batch: (typeof batches)[number], i: number) =>
      ({ journalId: String(i), sessions: sessionDeltas(batch), visitors: visitorDeltas(batch), counters: null });
    const inOrder = PendingFolds.of(batches.map(entry));
    const cut = 1 + (round % 5);
    const failed = PendingFolds.of(batches.slice(0, cut).map(entry));
    failed.append(PendingFolds.of(batches.slice(cut).map((b, i) => entry(b, cut + i))));
    t.same(failed.journalIds, inOrder.journalIds, `round ${round}: journal ids in commit order`);
    t.same(failed.merged.sessionRows(), inOrder.merged.sessionRows(), `round ${round}: sessions`);
    t.same(failed.merged.visitorRows(), inOrder.merged.visitorRows(), `round ${round}: visitors`);
  }
});

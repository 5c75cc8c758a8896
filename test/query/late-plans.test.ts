// A read over a day with late events (late.ts) asks, for every event of each touched session-day, whether
// it is one of the marked ones. Asked as a lookup per event, the planner took the marks' (project, day)
// index, which statistics older than the marks call small, and scanned every mark of the day for each
// event: quadratic, 2.1–3.1 s for stats 30d at 1M events with 2,000 marks against 21 ms without. Each
// such question is one hashed set of the marks, probed once an event, whatever the statistics say; this
// pins that shape on the very fragments the reads use (late.ts's, entry.ts's), with the marks newer than
// the last analyze, as they always are under traffic.
import t from 'tap';
import type { Sql } from 'postgres';
import { buildRollups, generate, referenceServer, rollupScope, send } from './reference.ts';
import type { Fragment } from '../../src/query/dimensions.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Plan } from '../../src/query/rollup/segments.ts';
import { lateFilteredCtes, lateSessionCtes, markedEventSql } from '../../src/query/rollup/late.ts';

const DAY = 86_400_000;
t.setTimeout(300_000);
const {
  s,
  projects: [site],
  owner,
  sql,
} = await referenceServer(t, ['site']);
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 3 * DAY;
await send(s, site.secretKey, generate('p', start, 3, 60, 13), owner.cookie);
await buildRollups(s);

const day = new Date(today - DAY).toISOString().slice(0, 10);
const scope = rollupScope(start, today, 'all', 'all');
const filtered: Scope = { ...scope, filters: [{ dimension: 'device', value: 'desktop', exclude: false }] };
const plan: Plan = { from: '', to: '', sel: 11, rolled: [], raw: [], late: [day] };

class Rollback extends Error {}

/** The plan of `statement` once every event of the day is marked after the marks' statistics were taken. */
async function explained(statement: (tx: Sql) => Fragment): Promise<string> {
  let text = '';
  await sql
    .begin(async (tx) => {
      await tx`analyze rollup_stale_days`;
      await tx`insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
        select project_id, ${day}::date, id, ts, session_id from events
        where project_id = 'site' and ts >= ${day}::date and ts < ${day}::date + 1`;
      const rows = await tx<
        { 'QUERY PLAN': string }[]
      >`explain (verbose, costs off) ${statement(tx as unknown as Sql)}`;
      text = rows.map((r) => r['QUERY PLAN']).join('\n');
      throw new Rollback();
    })
    .catch((e: unknown) => {
      if (!(e instanceof Rollback)) throw e;
    });
  return text;
}

const marked = (
  await sql<{ n: number }[]>`
  select count(*)::int as n from events where project_id = 'site' and ts >= ${day}::date and ts < ${day}::date + 1`
)[0]!.n;
t.ok(marked > 100, `the day marked whole holds ${marked} events`);

/** The row of `late_ev` computes its `late` column from one hashed set (PostgreSQL 15 and PGlite print it
 *  differently). */
const hashedLate = /Output: e(_\d+)?\.project_id, [^\n]*hashed SubPlan/;

t.test('the touched session-days without filters: the marked events (late_me) as one hashed set', async (t) => {
  const text = await explained((tx) => tx`with ${lateSessionCtes(tx, scope, plan)} select count(*) from late_ev`);
  t.match(text, hashedLate, "each event's `late` probes the hashed set");
});

t.test(
  'the touched session-days under filters: the marks and lacking events (late_keys) as one hashed set',
  async (t) => {
    const text = await explained((tx) => tx`with ${lateFilteredCtes(tx, filtered, plan)} select count(*) from late_ev`);
    t.match(text, hashedLate, "each event's `late` probes the hashed set");
  },
);

t.test("entry and exit pages: an event's mark as one hashed set", async (t) => {
  const text = await explained(
    (tx) => tx`
      select count(*) from events e where e.project_id = 'site' and e.ts >= ${day}::date and e.ts < ${day}::date + 1
        and not ${markedEventSql(tx, 'site', [day], tx`e`)}`,
  );
  t.match(text, /Filter: \(NOT [^\n]*hashed SubPlan/, 'each event probes the hashed set');
  t.notMatch(text, /Anti Join/, "no anti-join on the marks' estimate");
});

// What a fold of a day's marks costs beside the rebuild it replaces (src/query/rollup/fold.ts): for each
// count of BENCH_MARKS (200,2000,10000), that many events of BENCH_DAY (yesterday) of BENCH_PROJECT are
// marked as late events (events the day's rows already count: the timing is a real fold's, the rows come
// out wrong), folded, then the day is rebuilt from its events (which also makes its rows exact again);
// alternately, BENCH_RUNS (2) times. Prints each one's milliseconds and the sessions the marks touched.
// BENCH_PICK=latest takes the day's newest events instead, as live traffic brings them: the day's rows are
// built without them (marked first, so the build leaves them out) and then folded, so a session they go
// on is taken from what the rows hold of it (0086) rather than counted from its events.
// PostgreSQL (DATABASE_URL, a database kept from `bench:query` with BENCH_KEEP=1) or embedded
// (BENCH_DATA_DIR, a kept data folder with no server running). Nothing runs beside it.
import { loadAverage, openKeptDatabase } from './kept-database.ts';
import { buildDay } from '../../src/query/rollup/builder.ts';
import { foldDay } from '../../src/query/rollup/fold.ts';
import { BUILD_STATEMENTS, nextDay } from '../../src/query/rollup/build.ts';
import { query } from '../../src/db/queries.ts';

const env = process.env;
const project = env.BENCH_PROJECT ?? 'bench-b';
const day = env.BENCH_DAY ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const counts = (env.BENCH_MARKS ?? '200,2000,10000').split(',').map(Number);
const runs = Number(env.BENCH_RUNS ?? 2);
const latest = env.BENCH_PICK === 'latest';
const db = await openKeptDatabase();
const sql = db.sql;
const timed = async (run: () => Promise<unknown>) => {
  const t0 = performance.now();
  const out = await run();
  return [performance.now() - t0, out] as const;
};

console.log(`load average at start ${loadAverage()}; ${project} ${day}`);
const [{ events }] = await sql<{ events: number }[]>`
  select count(*)::int as events from events
  where project_id = ${project} and ts >= ${day}::date::timestamp at time zone 'UTC'
    and ts < (${day}::date + 1)::timestamp at time zone 'UTC'`;
console.log(`${events} events in the day`);
// Marks left by earlier work would be folded too: the day is rebuilt first.
if ((await buildDay(sql, project, day)) !== 'built') throw new Error(`cannot build ${project} ${day}`);
console.log('| marks | sessions touched | fold ms | rebuild ms |');
console.log('| --- | --- | --- | --- |');
for (const n of counts)
  for (let run = 0; run < runs; run++) {
    const order = latest ? sql`ts desc, id desc` : sql`hashtext(id || ${String(run)})`;
    const mark = (tx: typeof sql) => tx<{ sessions: number }[]>`
      with picked as (
        insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
        select project_id, ${day}::date, id, ts, session_id from events
        where project_id = ${project} and ts >= ${day}::date::timestamp at time zone 'UTC'
          and ts < (${day}::date + 1)::timestamp at time zone 'UTC'
        order by ${order} limit ${n}
        returning session_id
      )
      select count(distinct session_id)::int as sessions from picked`;
    const [{ sessions }] = latest
      ? await sql.begin(async (tx) => {
          // the rows as built before the newest events came: those marked, then the build steps
          await query(tx, 'delete_rollup_days', [project, day, nextDay(day)]);
          const marked = await mark(tx as unknown as typeof sql);
          for (const s of BUILD_STATEMENTS) await query(tx, s, [project, day, nextDay(day)]);
          return marked;
        })
      : await mark(sql);
    const [foldMs, folded] = await timed(() => foldDay(sql, project, day));
    if (folded !== 'folded') throw new Error(`fold: ${folded}`);
    const [buildMs] = await timed(() => buildDay(sql, project, day));
    console.log(`| ${n} | ${sessions} | ${foldMs.toFixed(0)} | ${buildMs.toFixed(0)} |`);
  }
console.log(`load average at end ${loadAverage()}`);
await db.close();

// How long the rollup builder holds the database per step, and how long a statement issued meanwhile waits
// (what a flush waits behind the builder): each of the last BENCH_DAYS (7) built days of BENCH_PROJECT is
// rebuilt in one transaction (as ensureRollups and the builder used to) and in the builder's steps
// (buildDay), alternately, while a `select 1` goes out every 5 ms on the same client. Embedded
// (BENCH_DATA_DIR, a kept bench:query data folder with no server running) or PostgreSQL (DATABASE_URL).
import { loadAverage, openKeptDatabase } from './kept-database.ts';
import { query } from '../../src/db/queries.ts';
import { BUILD_STATEMENTS, nextDay } from '../../src/query/rollup/build.ts';
import { buildDay } from '../../src/query/rollup/builder.ts';

const env = process.env;
const project = env.BENCH_PROJECT ?? 'bench-200000';
const days = Number(env.BENCH_DAYS ?? 7);
const db = await openKeptDatabase();
const sql = db.sql;

/** Times `run` while probing the client every 5 ms: [run ms, longest probe wait ms]. */
async function probed(run: () => Promise<unknown>): Promise<[number, number]> {
  let worst = 0;
  let on = true;
  const probe = (async () => {
    while (on) {
      const t0 = performance.now();
      await sql`select 1`;
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  on = false;
  await probe;
  return [ms, worst];
}

const oneTransaction = (day: string) =>
  sql.begin(async (tx) => {
    await query(tx, 'lock_project', [project]);
    await query(tx, 'delete_rollup_days', [project, day, nextDay(day)]);
    for (const s of BUILD_STATEMENTS) await query(tx, s, [project, day, nextDay(day)]);
  });

console.log(`load average at start ${loadAverage()}`);
const picked = await sql<{ day: string; n: number }[]>`
  select to_char(r.day, 'YYYY-MM-DD') as day,
    (select count(*) from events e where e.project_id = ${project} and e.ts >= r.day::timestamp at time zone 'UTC'
       and e.ts < (r.day + 1)::timestamp at time zone 'UTC')::int as n
  from rollup_days r where r.project_id = ${project} order by r.day desc limit ${days}`;
const rows: string[] = [];
let worstOld = 0;
let worstNew = 0;
let worstStep = 0;
for (const { day, n } of picked) {
  const [oldMs, oldWait] = await probed(() => oneTransaction(day));
  const steps: number[] = [];
  let last = performance.now();
  const [newMs, newWait] = await probed(() =>
    buildDay(sql, project, day, async () => {
      steps.push(performance.now() - last);
      last = performance.now();
    }),
  );
  const step = Math.max(...steps);
  [worstOld, worstNew, worstStep] = [
    Math.max(worstOld, oldWait),
    Math.max(worstNew, newWait),
    Math.max(worstStep, step),
  ];
  rows.push(
    `| ${day} | ${n} | ${oldMs.toFixed(0)} | ${oldWait.toFixed(0)} | ${newMs.toFixed(0)} | ${step.toFixed(0)} | ${newWait.toFixed(0)} |`,
  );
}
console.log(
  '| day | events | one transaction ms | longest wait ms | steps total ms | longest step ms | longest wait ms |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
console.log(rows.join('\n'));
console.log(
  `longest wait: one transaction ${worstOld.toFixed(0)} ms, steps ${worstNew.toFixed(0)} ms (longest step ${worstStep.toFixed(0)} ms)`,
);
console.log(`load average at end ${loadAverage()}`);
await db.close();

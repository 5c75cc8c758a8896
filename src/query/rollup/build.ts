// Builds the day rollups of a span at once (`cli seed`, the benches), and says whether a read's range is
// in the rollups. Reads never build: the background builder (builder.ts) keeps the days current.
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import { stopIfLeft } from '../read-signal.ts';

const RUN_DAYS = 7;
/** The statements that build a span's rollups, each [project, first day, day after]; any order in one
 *  transaction, but build_rollup_set_sessions and build_rollup_set_value_days after the sets are interned.
 *  The background builder runs each in a transaction of its own, RECORDS_DAY last. */
export const BUILD_STATEMENTS = [
  'build_rollup_days',
  'build_rollup_page_days',
  'build_rollup_dim_days',
  'build_rollup_acq_days',
  'build_rollup_cross_days',
  'build_rollup_prop_days',
  'build_rollup_entry_days',
  'build_rollup_session_state',
  'build_rollup_set_sessions',
  'build_rollup_set_value_days',
];
/** The build statement that inserts the `rollup_days` rows, which make a day built for reads. */
export const RECORDS_DAY = 'build_rollup_days';
const ANALYZE_AFTER_DAYS = 14;
const ROLLUP_TABLES = [
  'rollup_days',
  'rollup_day_totals',
  'rollup_day_visitors',
  'rollup_day_split_sessions',
  'rollup_day_pages',
  'rollup_day_page_visitors',
  'rollup_dim_sets',
  'rollup_day_dims',
  'rollup_acq_sets',
  'rollup_day_acq',
  'rollup_day_props',
  'rollup_day_entry',
  'rollup_day_entry_sessions',
  'rollup_day_cross',
  'rollup_day_dim_sessions',
  'rollup_day_cross_sessions',
  'rollup_day_acq_sessions',
  'rollup_day_acq_pairs',
  'rollup_day_session_parts',
  'rollup_day_dim_pages',
  'rollup_day_acq_pages',
  'rollup_day_dim_names',
  'rollup_day_acq_names',
  'rollup_day_cross_pages',
  'rollup_day_cross_names',
  'rollup_day_path_names',
  'rollup_day_cross_entry',
  'rollup_day_dim_entry',
  'rollup_day_acq_entry',
  'rollup_day_value_sessions',
  'rollup_day_value_parts',
  'rollup_day_dim_page_facts',
  'rollup_day_acq_page_facts',
  'rollup_day_acq_page_pairs',
  'rollup_day_cross_page_facts',
];
const LOCK_CLASS = 7_370_007; // pg_advisory_xact_lock(class, hash(project)): one builder per project

/** Makes the rollups of [from, to) (UTC day strings, `to` exclusive) current for each project, waiting
 *  for another builder of the project if need be. */
export async function ensureRollups(sql: Sql, projectIds: string[], from: string, to: string): Promise<void> {
  const needed = await query<{ project_id: string; day: string }>(sql, 'list_rollup_days_needed', [
    projectIds,
    from,
    to,
  ]);
  // A read whose client left stops here, between runs: what was built stays built for the next read.
  for (const [projectId, start, end] of runs(needed)) {
    stopIfLeft();
    await buildRun(sql, projectId, start, end);
  }
  // A first build of many days changes the tables' sizes by orders: plan the reads on fresh statistics.
  if (needed.length >= ANALYZE_AFTER_DAYS) await analyzeRollups(sql);
}

async function buildRun(sql: Sql, projectId: string, start: string, end: string): Promise<void> {
  await sql.begin(async (tx) => {
    // The project's row first, as every writer of its rows (lock_project.sql): gone, nothing to build.
    if ((await query(tx, 'lock_project', [projectId])).length === 0) return;
    await tx`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${projectId}))`;
    // Another builder may have done these days while this one waited for the lock.
    const still = await query<{ day: string }>(tx, 'list_rollup_days_needed', [[projectId], start, end]);
    if (still.length === 0) return;
    const first = still[0]!.day;
    const after = nextDay(still[still.length - 1]!.day);
    await query(tx, 'delete_rollup_days', [projectId, first, after]);
    for (const statement of BUILD_STATEMENTS) {
      stopIfLeft();
      await query(tx, statement, [projectId, first, after]);
    }
  });
}

/** A first build of many days changes the tables' sizes by orders: plan the reads on fresh statistics. */
export async function analyzeRollups(sql: Sql): Promise<void> {
  await sql`analyze ${sql(ROLLUP_TABLES)}`;
}

/** Contiguous runs of needed days per project, each at most RUN_DAYS long: [project, first, after]. */
function runs(rows: { project_id: string; day: string }[]): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && last[0] === r.project_id && last[2] === r.day && daysBetween(last[1], r.day) < RUN_DAYS)
      last[2] = nextDay(r.day);
    else out.push([r.project_id, r.day, nextDay(r.day)]);
  }
  return out;
}

const DAY = 86_400_000;
export const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY);

/** Whether the rollups answer for every day of the range: none pending (list_rollup_days_pending.sql),
 *  none irregular (see 0007_rollups.sql). A read over a pending day reads events; it builds nothing. */
export async function rollupsReady(sql: Sql, projectIds: string[], from: string, to: string): Promise<boolean> {
  if (!(await rollupsBuilt(sql, projectIds, from, to))) return false;
  const [row]: [{ irregular: boolean }?] = await sql`
    select exists (select 1 from rollup_days where project_id = any(${projectIds}) and day >= ${from}::date and day < ${to}::date and irregular) as irregular`;
  return !row!.irregular;
}

/** Whether no day of the range is pending: the rows a breakdown by visitor-level values reads are exact
 *  whatever the day's sessions (their visitors are the events' own). */
export async function rollupsBuilt(sql: Sql, projectIds: string[], from: string, to: string): Promise<boolean> {
  return (await query(sql, 'list_rollup_days_pending', [projectIds, from, to])).length === 0;
}

// The background builder of the day rollups: keeps every day's rollup current off the read path, today's
// included (its events folded in as their marks add up, list_rollup_days_to_build.sql). Writers only
// append stale marks; this folds the marked events of a built day into its rows (fold.ts), rebuilds a day
// marked as a whole and builds the days that have none yet, one project and day at a time in short
// transactions, newest first, so reads never build and the flush never waits long.
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import { repeatPasses } from '../../passes.ts';
import { BUILD_STATEMENTS, RECORDS_DAY, analyzeRollups, nextDay } from './build.ts';
import { warmKeptValues } from './warm.ts';
import { foldDay } from './fold.ts';
import { holdProject } from './hold.ts';

const ANALYZE_AFTER_DAYS = 14;

/** Days built or folded, the projects a day before today was built or folded for (the kept values over
 *  their ranges count again: warm.ts's ranges end at today's midnight, and today's part is added per
 *  read, so a fold of today alone, every few seconds under traffic, changes none), projects skipped
 *  (another builder held them), and whether the pass ran out of time. */
export type BuildPass = { days: number; built: string[]; skipped: number; cut?: true };

/** When a day marked only for late events and stretched sessions is rebuilt: at this many marks, or when
 *  the oldest is this old. Until then reads add the marks' share (late.ts), so a steady trickle of late
 *  events into yesterday costs a rebuild every few minutes instead of one a pass, each of which takes a
 *  core for seconds at 10M events. */
export type Due = { marks: number; ageS: number };
export const BACKGROUND_DUE: Due = { marks: 2_000, ageS: 600 };
const AT_ONCE: Due = { marks: 1, ageS: 0 };

/**
 * Builds pending days of the projects until `budgetMs` has passed (a day started is finished), at most
 * `maxDays` a project; a day marked only for late events and sessions when `due` says so (by default at
 * once). A project whose builder lock another process holds is skipped for this pass.
 */
export async function buildPendingRollups(
  sql: Sql,
  projectIds: string[],
  opts: { budgetMs?: number; maxDays?: number; due?: Due } = {},
): Promise<BuildPass> {
  const until = performance.now() + (opts.budgetMs ?? Infinity);
  const due = opts.due ?? AT_ONCE;
  const out: BuildPass = { days: 0, built: [], skipped: 0 };
  let counted = 0; // days whose session facts per set were counted (after a migration, every day)
  projects: for (const id of projectIds) {
    const days = await query<{ day: string; fold: boolean }>(sql, 'list_rollup_days_to_build', [
      id,
      opts.maxDays ?? 10_000,
      due.marks,
      due.ageS,
    ]);
    for (const { day, fold } of days) {
      if (performance.now() > until) return analyzed(sql, { ...out, cut: true }, counted);
      const folded = fold ? await foldDay(sql, id, day) : 'build';
      const built = folded === 'build' ? await buildDay(sql, id, day) : folded;
      if (built === 'busy') {
        out.skipped += 1;
        continue projects;
      }
      if (built === 'built' || built === 'folded') {
        out.days += 1;
        if (day < new Date().toISOString().slice(0, 10) && !out.built.includes(id)) out.built.push(id);
      }
    }
    // Then the days, today's included, whose session facts per set are not counted (reads under filters
    // take them from events meanwhile) or lack as many folded events as make a day due (reads add those).
    const uncounted = await query<{ day: string }>(sql, 'list_rollup_set_session_days_to_build', [
      id,
      opts.maxDays ?? 10_000,
      due.marks,
      due.ageS,
    ]);
    for (const { day } of uncounted) {
      if (performance.now() > until) return analyzed(sql, { ...out, cut: true }, counted);
      if ((await countSetSessions(sql, id, day)) === 'busy') {
        out.skipped += 1;
        continue projects;
      }
      counted += 1;
    }
  }
  return analyzed(sql, out, counted);
}

/** Called between the steps of a day's build (tests hold a build there, or fail it). */
export type BetweenSteps = (done: string) => Promise<void>;

/**
 * One day, in short transactions: the marks and rows deleted, then one build statement a transaction,
 * build_rollup_days (which records the day built) last. Until that commits the day has no `rollup_days`
 * row, so it is pending and reads take events; a build that stops between steps leaves it so, and the next
 * pass builds it again. Each step commits and lets the flushes queued behind it run: embedded, the one
 * session is never held for more than one statement of one day. A mark committed after the first step's
 * delete survives and makes the day pending again, as in one transaction. The project is held for the
 * whole build (hold.ts).
 */
export async function buildDay(
  sql: Sql,
  projectId: string,
  day: string,
  between?: BetweenSteps,
): Promise<'built' | 'busy' | 'gone'> {
  await analyzeStaleEvents(sql);
  return holdProject(sql, projectId, async (step) => {
    const started = performance.now();
    for (const statement of buildSteps()) {
      const done = await step((tx) => query(tx, statement, [projectId, day, nextDay(day)]));
      if (done === false) return 'gone';
      if (done === null) return 'busy';
      if (between) await between(statement);
    }
    await query(sql, 'record_rollup_build_time', [projectId, day, Math.round(performance.now() - started)]);
    return 'built';
  });
}

/** Analyzes the partitions of events whose statistics lag their rows (list_events_partitions_to_analyze.sql
 *  says why), so that a build is planned for the rows it reads. */
async function analyzeStaleEvents(sql: Sql): Promise<void> {
  const stale = await query<{ partition: string }>(sql, 'list_events_partitions_to_analyze', []);
  for (const { partition } of stale) await sql`analyze ${sql(partition)}`;
}

/** A built day's session facts per set of values (0089, 0090), counted again in one transaction: a day's
 *  sessions without the events of marks, as its build counts them, and the list of folded events they
 *  lacked (0091) emptied. How long it took is recorded: the next count of the day waits ten times that. */
async function countSetSessions(sql: Sql, projectId: string, day: string): Promise<'counted' | 'busy' | 'gone'> {
  return holdProject(sql, projectId, async (step) => {
    const started = performance.now();
    const done = await step(async (tx) => {
      await query(tx, 'delete_rollup_set_sessions', [projectId, day, nextDay(day)]);
      await query(tx, 'build_rollup_set_sessions', [projectId, day, nextDay(day)]);
    });
    if (done === false) return 'gone';
    if (done === null) return 'busy';
    await query(sql, 'record_rollup_set_session_count_time', [projectId, day, Math.round(performance.now() - started)]);
    return 'counted';
  });
}

/** The steps of a day's build: marks and rows deleted (marks committed before this delete are taken;
 *  the later steps see their events), the build statements, and the one that records the day last. */
function buildSteps(): string[] {
  return ['delete_rollup_days', ...BUILD_STATEMENTS.filter((s) => s !== RECORDS_DAY), RECORDS_DAY];
}

/** A first build of many days changes the tables' sizes by orders: plan the reads on fresh statistics. */
async function analyzed(sql: Sql, pass: BuildPass, counted: number): Promise<BuildPass> {
  if (pass.days + counted >= ANALYZE_AFTER_DAYS) await analyzeRollups(sql);
  return pass;
}

/**
 * Runs passes every `everyMs`, each at most ~2 s of building so a deployment that starts with months to
 * build still yields to the database between passes. A pass looks at the projects with marks; at every
 * project `ids()` lists (for days that have no rollup yet) on the first pass, when a UTC day has closed
 * (5 minutes' grace, as list_rollup_days_to_build.sql) and after a pass that ran out of time, so an idle
 * pass costs one statement however many projects there are. Answers a stop that waits for the pass.
 */
export function startRollupBuilder(
  sql: Sql,
  ids: () => string[],
  everyMs: number,
  onError: (err: unknown) => void,
  warmMs = 2_000,
): () => Promise<void> {
  let stopped = false;
  let scannedDay = '';
  const unwarmed = new Map<string, number>(); // project → the first default read not yet counted
  const pass = async () => {
    try {
      const day = new Date(Date.now() - 5 * 60_000).toISOString().slice(0, 10);
      const all = ids();
      const projects =
        day !== scannedDay
          ? all
          : (
              await query<{ project_id: string }>(sql, 'list_marked_projects', [
                all,
                BACKGROUND_DUE.marks,
                BACKGROUND_DUE.ageS,
              ])
            ).map((r) => r.project_id);
      const done = await buildPendingRollups(sql, projects, { budgetMs: 2_000, due: BACKGROUND_DUE });
      // The rebuilt days made the kept values over them stale: count the dashboard's again now, not in
      // their first read, at most another `warmMs` a pass. A project whose list the deadline cut is taken
      // up where it stopped by the next passes, built or idle: at 10M the retention cells alone take
      // seconds, and the list restarted after every rebuild never reached them.
      for (const id of done.built) unwarmed.set(id, 0);
      const deadline = performance.now() + warmMs;
      for (const [id, from] of unwarmed) {
        const next = all.includes(id) ? await warmKeptValues(sql, id, { deadline, from }) : null;
        if (next === null) unwarmed.delete(id);
        else {
          unwarmed.set(id, next);
          break;
        }
      }
      if (projects === all) scannedDay = done.cut ? '' : day;
      else if (done.cut) scannedDay = '';
    } catch (err) {
      scannedDay = '';
      if (!stopped) onError(err);
    }
  };
  const stop = repeatPasses(everyMs, pass);
  return () => ((stopped = true), stop());
}

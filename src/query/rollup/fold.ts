// Folds a built day's marks into its rollup rows, so a day that late events or today's own traffic keep
// touching is not built again from all its events. A fold's cost grows with the sessions the marks touch,
// not with the day: at 10M events a rebuild of yesterday for a trickle of late events took a core for
// 7–10 s; its fold takes the marked events and their sessions' other events of the day.
//
// Each statement recounts what the marks change, as the build statement of the same table would count it
// now: a row counted per event adds the marked events; a row counted per session (sessions, bounces,
// durations, page facts, entry and exit pages) takes each touched session out as the rows hold it (its
// events without the marked ones) and puts it back with all of them; a set of visitors takes the new
// members. A session whose marked events all follow what the rows hold of it (a live session going on,
// today's usual case) is taken out and put back from that held state (rollup_day_session_state, 0086)
// plus its marked events, without reading its other events; the last statement writes the touched
// sessions' new held state. All of it in one repeatable-read transaction, which ends by deleting the marks it saw: a mark
// committed meanwhile is not seen by any statement, so its event stays out of the rows and its mark stays
// for the next fold, as in a build. A day with a whole-day mark, or not built, is built instead.
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import { nextDay } from './build.ts';
import { holdProject } from './hold.ts';

/** The fold statements after fold_rollup_days, each [project, day, day after], in this order (the sets of
 *  values interned before the rows that name them; the sessions' held state, which the first two read,
 *  last). */
export const FOLD_STATEMENTS = [
  'fold_rollup_page_days',
  'fold_rollup_sets',
  'fold_rollup_value_days',
  'fold_rollup_session_state',
];

/**
 * Folds the day's single-event and session marks into its rows. 'build' when the day cannot be folded (not
 * built, or marked as a whole): the caller builds it. 'busy' when another builder holds the project.
 */
export async function foldDay(sql: Sql, projectId: string, day: string): Promise<'folded' | 'build' | 'busy' | 'gone'> {
  const after = nextDay(day);
  return holdProject(
    sql,
    projectId,
    async (step) => {
      const started = performance.now();
      const done = await step(async (tx) => {
        const [state] = await tx<{ built: boolean; whole: boolean }[]>`
          select exists (select 1 from rollup_days where project_id = ${projectId} and day = ${day}::date) as built,
            exists (
              select 1 from rollup_stale_days
              where project_id = ${projectId} and day = ${day}::date and event_id is null and session_id is null) as whole`;
        if (!state!.built || state!.whole) return 'build' as const;
        await query(tx, 'create_rollup_fold_marks', [projectId, day]);
        const [days] = await query<{ pages: string[] }>(tx, 'fold_rollup_days', [projectId, day, after]);
        for (const statement of FOLD_STATEMENTS) await query(tx, statement, [projectId, day, after]);
        if (days!.pages.length > 0) await query(tx, 'delete_rollup_empty_entry_rows', [projectId, day, days!.pages]);
        // The session facts per set of values (0089, 0090) are kept as counted, the folded events listed
        // beside them for reads to add (0091) and the builder to count again.
        await query(tx, 'fold_rollup_set_sessions', [projectId, day]);
        await query(tx, 'delete_rollup_folded_marks', [projectId, day]);
        return 'folded' as const;
      });
      if (done === false) return 'gone';
      if (done === null) return 'busy';
      if (done === 'folded')
        await query(sql, 'record_rollup_fold_time', [projectId, day, Math.round(performance.now() - started)]);
      return done;
    },
    'repeatable read',
  );
}

// The day rollups (src/query/rollup) are kept by the writers, never by reads: a checkpoint recomputes the
// session-days its events touched (apply_rollup_session_days.sql) in its own transaction, and a writer that
// rewrites or deletes events (visitor-internal PATCH, retention, seed) puts their days up for a whole
// rebuild (rollup_pending_days), which rebuildPendingDays does day by day. Writers of one project's
// rollups hold its rollup lock, so each reads the contributions the previous one left; reads take none.
import type { Sql, TransactionSql } from 'postgres';
import { query } from './queries.ts';

const LOCK_CLASS = 7_370_030; // pg_advisory_xact_lock(class, hashtext(project)): one rollup writer per project
const KEYS_PER_STATEMENT = 1_000;
const DAY = 86_400_000;

/** A session's span in the events being applied: the UTC days from its first to its last event. */
export type SessionSpan = { id: string; started_at: string; last_activity: string };

/** Takes the project's rollup lock until the transaction ends. */
export async function lockRollups(tx: Sql | TransactionSql, projectId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${projectId}))`;
}

/**
 * In a checkpoint's transaction, after its sessions upsert: recomputes every (session, UTC day) of the
 * spans and adds the difference to the day rollups; `claimedIds` are the ids of the events of the journal
 * rows the transaction claimed, which the dimension and prop rows count once each.
 */
export async function applyRollups(
  tx: Sql | TransactionSql,
  projectId: string,
  spans: readonly SessionSpan[],
  claimedIds: string[],
): Promise<void> {
  if (spans.length === 0) return;
  await lockRollups(tx, projectId);
  const ids: string[] = [];
  const days: string[] = [];
  for (const s of spans) {
    for (const day of daysOf(s.started_at, s.last_activity)) (ids.push(s.id), days.push(day));
  }
  await applyKeys(tx, projectId, ids, days, claimedIds);
}

async function applyKeys(
  tx: Sql | TransactionSql,
  projectId: string,
  ids: string[],
  days: string[],
  claimedIds: string[],
): Promise<void> {
  for (let i = 0; i < ids.length; i += KEYS_PER_STATEMENT) {
    const end = i + KEYS_PER_STATEMENT;
    await query(tx, 'apply_rollup_session_days', [projectId, ids.slice(i, end), days.slice(i, end), claimedIds]);
  }
}

/** The UTC days ('YYYY-MM-DD') from the day of `from` to the day of `to`, both ISO timestamps. */
export function daysOf(from: string, to: string): string[] {
  const first = Math.floor(Date.parse(from) / DAY) * DAY;
  const last = Math.floor(Date.parse(to) / DAY) * DAY;
  const out: string[] = [];
  for (let t = first; t <= last; t += DAY) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Puts UTC days of a project up for a whole rebuild, inside the transaction that changed their events. */
export async function markRollupDaysPending(
  tx: Sql | TransactionSql,
  projectId: string,
  days: string[],
): Promise<void> {
  if (days.length > 0) await query(tx, 'mark_rollup_days_pending', [projectId, days]);
}

/** Rebuilds one day of a project from its events, in one transaction under the rollup lock. */
export async function rebuildDay(sql: Sql, projectId: string, day: string): Promise<void> {
  await sql.begin(async (tx) => {
    // The project's row first, as every writer of its rows (lock_project.sql): gone, nothing to build.
    if ((await query(tx, 'lock_project', [projectId])).length === 0) return;
    await lockRollups(tx, projectId);
    const [mark] = await tx<{ at: string }[]>`
      select marked_at::text as at from rollup_pending_days where project_id = ${projectId} and day = ${day}::date`;
    const after = new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    await query(tx, 'delete_rollup_days', [projectId, day, after]);
    const sessions = await query<{ session_id: string }>(tx, 'list_rollup_day_sessions', [projectId, day]);
    const ids = sessions.map((s) => s.session_id);
    await applyKeys(
      tx,
      projectId,
      ids,
      ids.map(() => day),
      [],
    );
    // Events whose journal rows are still unclaimed are left to the checkpoint that claims them.
    const unclaimed = (await query<{ id: string }>(tx, 'list_unclaimed_event_ids', [projectId])).map((r) => r.id);
    await query(tx, 'build_rollup_dim_days', [projectId, day, after, unclaimed]);
    await query(tx, 'build_rollup_prop_days', [projectId, day, after, unclaimed]);
    await query(tx, 'build_rollup_value_days', [projectId, day, after, unclaimed]);
    if (mark) await query(tx, 'delete_rollup_pending_day', [projectId, day, mark.at]);
  });
}

/** Rebuilds the pending days (of one project, or all), oldest mark first; answers how many it rebuilt. */
export async function rebuildPendingDays(sql: Sql, projectId: string | null = null): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await query<{ project_id: string; day: string }>(sql, 'list_rollup_pending_days', [projectId, 50]);
    if (batch.length === 0) return done;
    for (const { project_id, day } of batch) await rebuildDay(sql, project_id, day);
    done += batch.length;
    // A project deleted meanwhile leaves no marks (its rows go with it); a mark left means a rebuild failed.
    if (batch.length < 50) return done;
  }
}

/** Rebuilds pending days in the background: at start (days left by an upgrade or a stopped process) and
 *  every `everyMs`. Answers a stop function that waits for a rebuild in progress. */
export function keepRollups(sql: Sql, onError: (err: unknown) => void, everyMs = 30_000): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const run = () => {
    running = running.then(() => (stopped ? 0 : rebuildPendingDays(sql).catch(onError)));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

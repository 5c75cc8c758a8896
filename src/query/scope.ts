// Fixes what a read covers: the projects, the resolved range (the 'all' period needs the first event), the
// previous range, and under `trait:` filters the sessions that hold their events. The one place a read's
// ReadParams meet the database before its own SQL.
import type { Sql } from 'postgres';
import type { Fragment } from './dimensions.ts';
import { traitVisitorsSql } from './dimensions.ts';
import type { Scope } from './filters.ts';
import { previousRange, resolveRange, type Filter, type ReadParams, type Range } from './params.ts';

export type ReadScope = { current: Scope; previous: Scope };

/** Past this many sessions a trait's events are read from the range as any filter's: each listed session
 *  costs the plan an index probe (about 10 µs) and its estimate, where the range costs about 1 µs an event. */
export const TRAIT_SESSIONS_MAX = 20_000;

export async function readScope(sql: Sql, projectIds: string[], params: ReadParams): Promise<ReadScope> {
  const range = resolveRange(params.window, params.window.kind === 'all' ? await firstEvent(sql, projectIds) : null);
  const previous = previousRange(range);
  const base = { projectIds, traffic: params.traffic, environment: params.environment, filters: params.filters };
  // Each range its own list: the plan's estimate of a list's events is what picks the sessions' index.
  const [current, before] = await Promise.all(
    [range, previous].map((r) => traitSessions(sql, projectIds, params.filters, r)),
  );
  return {
    current: { ...base, range, ...(current ? { sessions: current } : {}) },
    previous: { ...base, range: previous, ...(before ? { sessions: before } : {}) },
  };
}

async function firstEvent(sql: Sql, projectIds: string[]): Promise<Date | null> {
  if (projectIds.length === 0) return null;
  const [row]: [{ first: Date | null }?] =
    await sql`select min(ts) as first from events where project_id = any(${projectIds})`;
  return row?.first ?? null;
}

/**
 * The ids of the sessions within `range` of the visitors that have every value the `trait:` filters ask
 * for, found through the traits' index (0096) and the sessions' (project, visitor) index; undefined without
 * such a filter or past `max`. A session is one visitor's (actors/sessionizer.ts keys it by visitor), and
 * once the checkpoint has applied its events its row spans each of them, as the visitor's first and last
 * seen span its sessions (so the visitors seen only outside the range are not looked up: half of the
 * list's time at 10M events). These sessions hold every event the filters select; the filters themselves
 * stay in the read. Like the traits, a session begun since the last checkpoint (CHECKPOINT_MS) is counted
 * from the next one.
 */
export async function traitSessions(
  sql: Sql,
  projectIds: string[],
  filters: Filter[],
  range: Range,
  max = TRAIT_SESSIONS_MAX,
): Promise<string[] | undefined> {
  const conditions = filters
    .filter((f) => !f.exclude)
    .map((f) => traitVisitorsSql(sql, projectIds, f.dimension, f.value))
    .filter((c): c is Fragment => c !== null);
  if (conditions.length === 0) return undefined;
  const rows = await sql<{ id: string }[]>`
    select s.id from sessions s
    where (s.project_id, s.visitor_id) in (
        select v.project_id, v.id from visitors v
        where ${conditions.reduce((acc, c) => sql`${acc} and ${c}`)}
          and v.last_seen >= ${range.from} and v.first_seen < ${range.to})
      and s.started_at < ${range.to} and s.last_activity >= ${range.from}
    limit ${max + 1}`;
  return rows.length > max ? undefined : rows.map((r) => r.id);
}

export type { Range };

// Fixes what a read covers: the projects, the resolved range (the 'all' period needs the first event)
// and the previous range. The one place a read's ReadParams meet the database before its own SQL.
import type { Sql } from 'postgres';
import type { Scope } from './filters.ts';
import { previousRange, resolveRange, type ReadParams, type Range } from './params.ts';

export type ReadScope = { current: Scope; previous: Scope };

export async function readScope(sql: Sql, projectIds: string[], params: ReadParams): Promise<ReadScope> {
  const range = resolveRange(params.window, params.window.kind === 'all' ? await firstEvent(sql, projectIds) : null);
  const base = { projectIds, traffic: params.traffic, environment: params.environment, filters: params.filters };
  return { current: { ...base, range }, previous: { ...base, range: previousRange(range) } };
}

async function firstEvent(sql: Sql, projectIds: string[]): Promise<Date | null> {
  if (projectIds.length === 0) return null;
  const [row]: [{ first: Date | null }?] =
    await sql`select min(ts) as first from events where project_id = any(${projectIds})`;
  return row?.first ?? null;
}

export type { Range };

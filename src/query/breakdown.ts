// Breakdown rows: the metric registry grouped by one key (a dimension value or a project), sorted by
// the first two metrics (desc) then the value, paged by an opaque offset cursor. Shapes rows; no HTTP.
import type { Sql } from 'postgres';
import type { PagedRead } from '../db/held-cursor.ts';
import { HttpError } from '../errors.ts';
import { dimensionSql, type Fragment } from './dimensions.ts';
import type { Scope } from './filters.ts';
import { readSpeedGroups } from './speed/read.ts';
import { groupedSql, parseMetric, type GroupRow, type Metric } from './metrics.ts';

export type BreakdownRow = { value: string; share: number } & Record<string, number | string>;
export type BreakdownPage = { rows: BreakdownRow[]; total: number; nextCursor: string | null };

export const EXPORT_ROWS = 1_000_000;

/** The `metrics` default: visitors,pageviews, and for page also bounce_rate,time_on_page. */
export const defaultMetrics = (dimension: string) =>
  dimension === 'page' ? ['visitors', 'pageviews', 'bounce_rate', 'time_on_page'] : ['visitors', 'pageviews'];

/** Parses a comma list; unknown or repeated names are a 400 naming `field`. */
export function parseMetricList(list: string | undefined, fallback: string[], field = 'query.metrics'): Metric[] {
  const names = list === undefined ? fallback : list.split(',').map((s) => s.trim());
  const bad = names.filter((n) => parseMetric(n) === null);
  if (bad.length > 0 || names.length === 0)
    throw new HttpError('VALIDATION_FAILED', `${field}: unknown metric ${bad.join(', ')}`, [
      { field, message: `unknown metric: ${bad.join(', ')}` },
    ]);
  if (new Set(names).size !== names.length)
    throw new HttpError('VALIDATION_FAILED', `${field}: a metric is repeated`, [
      { field, message: 'a metric is repeated' },
    ]);
  return names.map((n) => parseMetric(n)!);
}

/** The key of a dimension breakdown: the dimension's value as text. */
export const dimensionKey = (sql: Sql, dimension: string): Fragment => sql`(${dimensionSql(sql, dimension)})::text`;

/** One page (offset/limit) of the rows; `total` is the number of distinct non-null values. */
export async function readBreakdown(
  sql: Sql,
  scope: Scope,
  key: Fragment,
  metrics: Metric[],
  offset: number,
  limit: number,
  grouped: Fragment | null = null,
): Promise<BreakdownPage> {
  if (scope.projectIds.length === 0) return { rows: [], total: 0, nextCursor: null };
  const rows = await sortedSql(sql, scope, key, metrics, offset, limit, grouped);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && offset > 0) {
    const [count]: [{ n: number }?] =
      await sql`select count(*)::int as n from (${grouped ?? groupedSql(sql, scope, key, metrics)}) r`;
    total = count?.n ?? 0;
  }
  const end = offset + rows.length;
  return { rows: rows.map((r) => shapeRow(r, metrics)), total, nextCursor: end < total ? encodeOffset(end) : null };
}

/** Every row in order (up to EXPORT_ROWS), fetched in batches, for the exports. */
export async function* allBreakdownRows(
  sql: Sql,
  pagedRead: PagedRead,
  scope: Scope,
  key: Fragment,
  metrics: Metric[],
): AsyncGenerator<BreakdownRow> {
  if (scope.projectIds.length === 0) return;
  for await (const batch of pagedRead(sortedSql(sql, scope, key, metrics, 0, EXPORT_ROWS), 1000)) {
    for (const r of batch) yield shapeRow(r, metrics);
  }
}

type SortedRow = GroupRow<string> & { total: number };

/** `grouped` (rows of groupedSql's shape) defaults to groupedSql over events; the rollups pass their own. */
function sortedSql(
  sql: Sql,
  scope: Scope,
  key: Fragment,
  metrics: Metric[],
  offset: number,
  limit: number,
  grouped: Fragment | null = null,
) {
  const second = metrics.length > 1 ? sql`r.values[2] desc,` : sql``;
  return sql<SortedRow[]>`
    select r.*, (count(*) over ())::int as total from (${grouped ?? groupedSql<string>(sql, scope, key, metrics)}) r
    order by r.values[1] desc, ${second} r.key collate "C"
    limit ${limit} offset ${offset}`;
}

function shapeRow(r: GroupRow<string>, metrics: Metric[]): BreakdownRow {
  const row: Record<string, number | string> = { value: r.key };
  metrics.forEach((m, i) => (row[m.member] = r.values[i]!));
  row.share = r.all_visitors === 0 ? 0 : r.visitors / r.all_visitors;
  return row as BreakdownRow;
}

// Offset cursors: every row's aggregates must be computed to sort them anyway, so a keyset would save
// no work; the order is total (value breaks ties), so pages concatenate while the data holds still.
export const encodeOffset = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString('base64url');

const MAX_OFFSET = 1_000_000;

export function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    // Past the export bound no page has rows; a bigger offset is not one this API gave out.
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0 && o <= MAX_OFFSET) return o;
  } catch {
    // falls through to the error below
  }
  throw new HttpError('VALIDATION_FAILED', 'cursor is not one this API gave out.', [
    { field: 'query.cursor', message: 'unknown cursor' },
  ]);
}

// The across-projects row's extras (detail access only): open issues and a speed score per project.

export async function openIssueCounts(sql: Sql, projectIds: string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await sql<{ project_id: string; n: number }[]>`
    select project_id, count(*)::int as n from issues where project_id = any(${projectIds}) and status = 'open' group by 1`;
  return new Map(rows.map((r) => [r.project_id, r.n]));
}

/** The page score (src/query/speed) of each project over the range: p75, every device on the mobile curves,
 *  traffic and environment as the scope's (dimension filters do not apply); null without samples. */
export async function speedScores(sql: Sql, scope: Scope, projectIds: string[]): Promise<Map<string, number | null>> {
  const bots = scope.traffic === 'bots' ? 'bots' : scope.traffic === 'all' ? 'all' : 'human';
  const sel = {
    projectIds,
    range: scope.range,
    environment: scope.environment,
    bots,
    device: 'all',
    filters: [],
  } as const;
  const groups = await readSpeedGroups(sql, sel, { key: 'none', perProject: true }, 75);
  return new Map(groups.map((g) => [g.project!, g.score]));
}

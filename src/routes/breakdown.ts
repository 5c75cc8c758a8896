// Breakdowns: rows per dimension value of one project, and one row per readable project with change
// against the previous range. Parse → scope → src/query/breakdown.ts (and project-rows.ts) → shape.
import * as v from 'valibot';
import { HttpError } from '../errors.ts';
import { canReadDetail } from '../auth/access.ts';
import type { Caller } from '../auth/principal.ts';
import {
  allBreakdownRows,
  decodeOffset,
  EXPORT_ROWS,
  defaultMetrics,
  dimensionKey,
  openIssueCounts,
  parseMetricList,
  readBreakdown,
  speedScores,
  type BreakdownRow,
} from '../query/breakdown.ts';
import { isDimension } from '../query/dimensions.ts';
import { exportFormats, exportReply, formatOf, type Column } from '../query/export/index.ts';
import { checkConversion, type Metric } from '../query/metrics.ts';
import { echoFilters, rangeView, readQueryEntries, toReadParams } from '../query/params.ts';
import { readScope, type ReadScope } from '../query/scope.ts';
import { rollupProjectGroups } from '../query/rollup/projects.ts';
import { rollupDimensionGroups } from '../query/rollup/dims.ts';
import { rollupDimensionSessionGroups } from '../query/rollup/dim-sessions.ts';
import { rollupEntryGroups } from '../query/rollup/entry.ts';
import { rollupPageGroups } from '../query/rollup/pages.ts';
import { rollupEventGroups, rollupPropGroups } from '../query/rollup/props.ts';
import { rollupSpeedScores } from '../query/rollup/speed.ts';
import { change } from '../query/stats.ts';
import type { Services } from '../services.ts';
import { accessInfo, readableProjectIds } from './pipeline.ts';
import { route } from './route.ts';
import { breakdownResponse, projectBreakdownResponse } from './responses.ts';

export const breakdownQuery = v.object({
  ...readQueryEntries,
  metrics: v.optional(v.pipe(v.string(), v.minLength(1, 'must name at least one metric'))),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, 'must be an integer from 1 to 100 (1000 with format)'),
      v.transform(Number),
    ),
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  format: v.optional(v.picklist(exportFormats, `must be one of ${exportFormats.join(', ')}`)),
});
export type BreakdownQuery = v.InferOutput<typeof breakdownQuery>;

export const breakdownRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/breakdown/{dimension}',
    response: breakdownResponse,
    access: 'project',
    tag: 'Stats',
    summary:
      'Rows per value of a dimension (or prop:<key>, trait:<key>, group:<type>), sorted by the first two metrics; share of visitors; offset cursor; format exports every row.',
    query: breakdownQuery,
    async handler({ query, params, project, services, headers }) {
      const dimension = params.dimension!;
      // An unknown dimension is a bad parameter (400 naming params.dimension), not a missing resource.
      if (!isDimension(dimension)) {
        throw new HttpError('VALIDATION_FAILED', `params.dimension: ${dimension} is not a registered dimension`, [
          {
            field: 'params.dimension',
            message: 'is not a registered dimension (or prop:<key>, trait:<key>, group:<type>)',
          },
        ]);
      }
      const format = formatOf(query, headers.accept);
      const { limit, offset } = paging(query, format !== null);
      const readParams = toReadParams(query, new Date());
      const metrics = parseMetricList(query.metrics, defaultMetrics(dimension));
      checkConversion(metrics, readParams, 'query.metrics');
      const scope = (await readScope(services.sql, [project.id], readParams)).current;
      const key = dimensionKey(services.sql, dimension);
      const envelope = {
        dimension,
        range: rangeView(scope.range),
        traffic: readParams.traffic,
        environment: readParams.environment,
        filters: echoFilters(readParams.filters),
      };
      if (format) {
        return exportReply(format, {
          name: `breakdown_${dimension}`,
          columns: breakdownColumns(metrics),
          envelope,
          rows:
            format === 'json'
              ? allBreakdownRows(services.sql, services.pagedRead, scope, key, metrics)
              : nestDotted(allBreakdownRows(services.sql, services.pagedRead, scope, key, metrics), metrics),
        });
      }
      // The rollups answer when they can (the page without filters or under one family's, the visitor-level
      // and acquisition dimensions under filters on them, with session metrics too, entry and exit page
      // without filters, props under event filters, the event name under those and one family's), with the
      // part of the range they do not hold from events; else raw.
      const rolled =
        dimension === 'page'
          ? await rollupPageGroups(services.sql, scope, metrics)
          : dimension === 'event'
            ? await rollupEventGroups(services.sql, scope, metrics)
            : ((await rollupDimensionGroups(services.sql, scope, dimension, metrics)) ??
              (await rollupDimensionSessionGroups(services.sql, scope, dimension, metrics)) ??
              (await rollupEntryGroups(services.sql, scope, dimension, metrics)) ??
              (await rollupPropGroups(services.sql, scope, dimension, metrics)));
      const page = await readBreakdown(services.sql, scope, key, metrics, offset, limit, rolled?.grouped);
      return { data: page.rows, ...envelope, total: page.total, nextCursor: page.nextCursor };
    },
  }),
  route({
    method: 'GET',
    path: '/v2/breakdown/project',
    response: projectBreakdownResponse,
    access: 'public',
    tag: 'Stats',
    settles: 'all',
    summary:
      'One row per readable project with traffic in the range: name, visibility, metrics, change against the previous range, speedScore and openIssues (null without detail access).',
    query: breakdownQuery,
    async handler({ query, caller, services, headers }) {
      const format = formatOf(query, headers.accept);
      const { limit, offset } = paging(query, format !== null);
      const readParams = toReadParams(query, new Date());
      const metrics = parseMetricList(query.metrics, ['visitors', 'pageviews']);
      checkConversion(metrics, readParams, 'query.metrics');
      const scope = await readScope(services.sql, readableProjectIds(services, caller), readParams);
      const envelope = {
        dimension: 'project',
        range: rangeView(scope.current.range),
        previousRange: rangeView(scope.previous.range),
        traffic: readParams.traffic,
        environment: readParams.environment,
        filters: echoFilters(readParams.filters),
      };
      const page = await projectBreakdown(
        services,
        caller,
        scope,
        metrics,
        format ? 0 : offset,
        format ? EXPORT_ROWS : limit,
      );
      if (format) {
        const columns: Column[] = [
          { key: 'value', type: 'text' },
          { key: 'name', type: 'text' },
          { key: 'visibility', type: 'text' },
          ...breakdownColumns(metrics).slice(1),
          ...metrics.map((m): Column => ({ key: `change.${m.member}`, type: 'number' })),
          { key: 'speedScore', type: 'integer' },
          { key: 'openIssues', type: 'integer' },
        ];
        return exportReply(format, {
          name: 'breakdown_project',
          columns,
          envelope: { ...envelope, total: page.total },
          rows: iterate(page.rows),
        });
      }
      return { data: page.rows, ...envelope, total: page.total, nextCursor: page.nextCursor };
    },
  }),
];

/** The page of project rows with name, visibility, change per metric and the detail-only members. */
async function projectBreakdown(
  services: Services,
  caller: Caller,
  scope: ReadScope,
  metrics: Metric[],
  offset: number,
  limit: number,
) {
  const sql = services.sql;
  const key = sql`e.project_id`;
  // The day rollups answer when they can (whole closed days, no filters, their metrics); else raw.
  const page = await readBreakdown(
    sql,
    scope.current,
    key,
    metrics,
    offset,
    limit,
    (await rollupProjectGroups(sql, scope.current, metrics))?.grouped,
  );
  const ids = page.rows.map((r) => r.value);
  const before = { ...scope.previous, projectIds: ids };
  const previous = await readBreakdown(
    sql,
    before,
    key,
    metrics,
    0,
    Math.max(1, ids.length),
    (await rollupProjectGroups(sql, before, metrics))?.grouped,
  );
  const prevRows = new Map(previous.rows.map((r) => [r.value, r]));
  const detailIds = ids.filter((id) => {
    const project = services.projects.get(id);
    return project !== undefined && canReadDetail(caller.principal, accessInfo(project));
  });
  const [issues, speed] = await Promise.all([
    openIssueCounts(sql, detailIds),
    rollupSpeedScores(sql, scope.current, detailIds, speedScores).then(
      (kept) => kept ?? speedScores(sql, scope.current, detailIds),
    ),
  ]);
  const rows = page.rows.map((r) => {
    const project = services.projects.get(r.value);
    const prev = prevRows.get(r.value);
    const detail = detailIds.includes(r.value);
    return {
      value: r.value,
      name: project?.name ?? r.value,
      visibility: project?.visibility ?? 'private',
      ...Object.fromEntries(metrics.map((m) => [m.member, r[m.member]])),
      share: r.share,
      change: Object.fromEntries(
        metrics.map((m) => [m.member, change(r[m.member] as number, (prev?.[m.member] as number | undefined) ?? 0)]),
      ),
      speedScore: detail ? (speed.get(r.value) ?? null) : null,
      openIssues: detail ? (issues.get(r.value) ?? 0) : null,
    };
  });
  return { rows, total: page.total, nextCursor: page.nextCursor };
}

/** limit 1–100 (default 20); with format up to 1000 is accepted, and every row is exported anyway. */
function paging(query: BreakdownQuery, exporting: boolean) {
  const limit = query.limit ?? 20;
  if (limit < 1 || limit > (exporting ? 1000 : 100)) {
    throw new HttpError('VALIDATION_FAILED', 'query.limit: out of range', [
      { field: 'query.limit', message: `must be an integer from 1 to ${exporting ? 1000 : 100}` },
    ]);
  }
  return { limit, offset: decodeOffset(query.cursor) };
}

const COUNTS = new Set(['visitors', 'sessions', 'pageviews', 'events']);

export const breakdownColumns = (metrics: Metric[]): Column[] => [
  { key: 'value', type: 'text' },
  ...metrics.map((m): Column => ({ key: m.member, type: COUNTS.has(m.name) ? 'integer' : 'number' })),
  { key: 'share', type: 'number' },
];

/** csv/sql read dotted column keys as paths, so `sum:prop.amount` is also put where that path leads. */
async function* nestDotted(
  rows: AsyncIterable<BreakdownRow>,
  metrics: Metric[],
): AsyncGenerator<Record<string, unknown>> {
  const dotted = metrics.filter((m) => m.member.includes('.'));
  for await (const row of rows) {
    const out: Record<string, unknown> = { ...row };
    for (const m of dotted) {
      const path = m.member.split('.');
      let at = out;
      for (const part of path.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
      at[path[path.length - 1]!] = row[m.member];
    }
    yield out;
  }
}

async function* iterate<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

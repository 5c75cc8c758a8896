// Timeseries of one metric for a project and summed over every readable project.
// Parse (valibot + toReadParams) → scope → src/query/timeseries.ts; this file only wires and shapes.
import * as v from 'valibot';
import { echoFilters, rangeView, readQueryEntries, toReadParams, type ReadParams } from '../query/params.ts';
import { readScope } from '../query/scope.ts';
import { defaultInterval, intervals, metricSchema, readTimeseries } from '../query/timeseries.ts';
import type { Services } from '../services.ts';
import { route } from './route.ts';
import { readableProjectIds } from './pipeline.ts';
import { timeseriesResponse } from './responses.ts';

const timeseriesQuery = v.object({
  ...readQueryEntries,
  metric: metricSchema,
  interval: v.optional(v.picklist(intervals, `must be one of ${intervals.join(', ')}`)),
  compare: v.optional(v.picklist(['previous'], 'must be previous')),
});
type TimeseriesQuery = v.InferOutput<typeof timeseriesQuery>;

export const timeseriesRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/timeseries',
    response: timeseriesResponse,
    access: 'project',
    tag: 'Stats',
    summary:
      'One metric per hour, day, week (from Monday) or month (UTC); empty buckets are 0; compare=previous adds the previous range.',
    query: timeseriesQuery,
    handler: ({ query, project, services }) => timeseriesAnswer(services, query, [project.id]),
  }),
  route({
    method: 'GET',
    path: '/v2/timeseries',
    response: timeseriesResponse,
    access: 'public',
    tag: 'Stats',
    settles: 'all',
    summary: 'A timeseries summed over every project the caller can read.',
    query: timeseriesQuery,
    handler: ({ query, caller, services }) => timeseriesAnswer(services, query, readableProjectIds(services, caller)),
  }),
];

async function timeseriesAnswer(services: Services, query: TimeseriesQuery, projectIds: string[]) {
  const params: ReadParams = toReadParams(query, new Date());
  const scope = await readScope(services.sql, projectIds, params);
  const interval = query.interval ?? defaultInterval(scope.current.range);
  return {
    data: await readTimeseries(services.sql, scope, query.metric, interval, query.compare === 'previous'),
    metric: query.metric,
    interval,
    range: rangeView(scope.current.range),
    traffic: params.traffic,
    environment: params.environment,
    filters: echoFilters(params.filters),
  };
}

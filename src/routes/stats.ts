// The statistic block for one project and summed over every project the caller can read.
// Parse (valibot + toReadParams) → scope → src/query/stats.ts; this file only wires and shapes.
import * as v from 'valibot';
import { echoFilters, rangeView, readQueryEntries, toReadParams, type ReadParams } from '../query/params.ts';
import { readScope, type ReadScope } from '../query/scope.ts';
import { readStats } from '../query/stats.ts';
import type { Services } from '../services.ts';
import { readableProjectIds } from './pipeline.ts';
import { route } from './route.ts';
import { statsResponse } from './responses.ts';

const statsQuery = v.object(readQueryEntries);

export const statsRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/stats',
    response: statsResponse,
    access: 'project',
    tag: 'Stats',
    summary:
      'Statistic block: visitors, sessions, pageviews, pages per session, bounce rate, session duration, with the previous range.',
    query: statsQuery,
    async handler({ query, project, services }) {
      const params = toReadParams(query, new Date());
      return statsAnswer(services, params, await readScope(services.sql, [project.id], params));
    },
  }),
  route({
    method: 'GET',
    path: '/v2/stats',
    response: statsResponse,
    access: 'public',
    tag: 'Stats',
    settles: 'all',
    summary: 'The statistic block summed over every project the caller can read.',
    query: statsQuery,
    async handler({ query, caller, services }) {
      const params = toReadParams(query, new Date());
      return statsAnswer(services, params, await readScope(services.sql, readableProjectIds(services, caller), params));
    },
  }),
];

async function statsAnswer(services: Services, params: ReadParams, scope: ReadScope) {
  return {
    data: await readStats(services.sql, scope),
    range: rangeView(scope.current.range),
    previousRange: rangeView(scope.previous.range),
    traffic: params.traffic,
    environment: params.environment,
    filters: echoFilters(params.filters),
  };
}

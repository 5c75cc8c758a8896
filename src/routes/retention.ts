// Retention cohorts of one project by week (from Monday, UTC; default) or month.
// Parse (valibot + toReadParams) → scope → src/query/retention.ts; this file only wires and shapes.
import * as v from 'valibot';
import { echoFilters, rangeView, readQueryEntries, toReadParams } from '../query/params.ts';
import { readRetention, retentionIntervals } from '../query/retention.ts';
import { readScope } from '../query/scope.ts';
import { route } from './route.ts';
import { retentionResponse } from './responses.ts';

const retentionQuery = v.object({
  ...readQueryEntries,
  interval: v.optional(v.picklist(retentionIntervals, `must be one of ${retentionIntervals.join(', ')}`), 'week'),
});

export const retentionRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/retention',
    response: retentionResponse,
    access: 'project',
    tag: 'Stats',
    summary:
      'Cohorts by the week (from Monday) or month of first visit in the range (UTC); each period {offset, visitors, share}, offset 0 has share 1.',
    query: retentionQuery,
    async handler({ query, project, services }) {
      const params = toReadParams(query, new Date());
      const scope = (await readScope(services.sql, [project.id], params)).current;
      return {
        data: await readRetention(services.sql, scope, query.interval),
        interval: query.interval,
        range: rangeView(scope.range),
        traffic: params.traffic,
        environment: params.environment,
        filters: echoFilters(params.filters),
      };
    },
  }),
];

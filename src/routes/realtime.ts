// Realtime reads, answered from the project actor's memory (here, or in the process that holds it): visitors active in the last five minutes
// (human traffic only), pageviews per minute, top pages and countries, and the active visitors.
import * as v from 'valibot';
import { authorize } from '../auth/access.ts';
import { accessInfo } from './pipeline.ts';
import { route } from './route.ts';
import { realtimeResponse, realtimeVisitorsResponse } from './responses.ts';

// Digits only (no sign, point or exponent), leading zeros allowed: `0050` is 50, and 1000 is out of
// range, not malformed. Up to 12 of them, which keeps Number() exact.
const digits = (max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,12}$/, `must be digits, 1 to ${max}`),
    v.transform(Number),
    v.minValue(1, `must be 1 to ${max}`),
    v.maxValue(max, `must be 1 to ${max}`),
  );

const RealtimeQuery = v.object({
  include: v.optional(v.picklist(['visitors'], 'must be visitors')),
  limit: v.optional(digits(200), '50'),
});

export const realtimeRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/realtime',
    response: realtimeResponse,
    access: 'project',
    tag: 'Realtime',
    settles: 'none',
    summary:
      'Visitors active in the last five minutes, pageviews per minute, pages and countries; include=visitors (detail access) adds the visitors.',
    query: RealtimeQuery,
    async handler({ query, project, caller, services }) {
      if (query.include === 'visitors') authorize('detail', caller.principal, accessInfo(project));
      const snap = (await (await services.cluster.project(project.id)).realtime(query.limit)).snapshot;
      return {
        data: {
          visitors: snap.visitors,
          pageviewsPerMinute: snap.pageviewsPerMinute,
          pages: snap.pages,
          countries: snap.countries,
        },
        window: snap.window,
        ...(query.include === 'visitors' ? { visitors: snap.activeVisitors } : {}),
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v2/projects/{project}/realtime/visitors',
    response: realtimeVisitorsResponse,
    access: 'detail',
    tag: 'Realtime',
    settles: 'none',
    summary: 'The visitors active in the last five minutes, most recent first: page, country, last seen, pageviews.',
    query: v.object({ limit: v.optional(digits(200), '50') }),
    async handler({ query, project, services }) {
      const snap = (await (await services.cluster.project(project.id)).realtime(query.limit)).snapshot;
      return { data: snap.activeVisitors, window: snap.window };
    },
  }),
];

// Every route of the API, in one list: the HTTP layer, the pipeline and the OpenAPI document read it.
import { annotationRoutes } from './annotations.ts';
import { authRoutes } from './auth.ts';
import { breakdownRoutes } from './breakdown.ts';
import { dashboardRoutes } from './dashboard.ts';
import { ingestRoutes } from './ingest.ts';
import { issueRoutes } from './issues.ts';
import { visitorRoutes } from './visitors.ts';
import { jobRoutes } from './jobs.ts';
import { logRoutes } from './logs.ts';
import { realtimeRoutes } from './realtime.ts';
import { retentionRoutes } from './retention.ts';
import { metaRoutes } from './meta.ts';
import { overviewRoutes } from './overview.ts';
import { projectRoutes } from './projects.ts';
import type { Route } from './route.ts';
import { sdkRoutes } from './sdk.ts';
import { signInRoutes } from './sign-in.ts';
import { memberRoutes } from './members.ts';
import { speedRoutes } from './speed.ts';
import { sqlRoutes } from './sql.ts';
import { statsRoutes } from './stats.ts';
import { timeseriesRoutes } from './timeseries.ts';
import { tokenRoutes } from './tokens.ts';

export function allRoutes(): Route[] {
  const routes: Route[] = [
    ...ingestRoutes,
    ...tokenRoutes,
    ...projectRoutes,
    ...annotationRoutes,
    ...authRoutes,
    ...signInRoutes,
    ...memberRoutes,
    ...jobRoutes,
    ...issueRoutes,
    ...overviewRoutes,
    ...visitorRoutes,
    ...logRoutes,
    ...realtimeRoutes,
    ...sdkRoutes,
    ...statsRoutes,
    ...timeseriesRoutes,
    ...breakdownRoutes,
    ...retentionRoutes,
    ...speedRoutes,
    ...dashboardRoutes,
    ...sqlRoutes,
  ];
  return [...routes, ...metaRoutes(() => routes)];
}

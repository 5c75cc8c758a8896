// Every route of the API, in one list: the HTTP layer, the pipeline and the OpenAPI document read it.
import { authRoutes } from './auth.ts';
import { ingestRoutes } from './ingest.ts';
import { jobRoutes } from './jobs.ts';
import { metaRoutes } from './meta.ts';
import { projectRoutes } from './projects.ts';
import type { Route } from './route.ts';
import { tokenRoutes } from './tokens.ts';

export function allRoutes(): Route[] {
  const routes: Route[] = [...ingestRoutes, ...tokenRoutes, ...projectRoutes, ...authRoutes, ...jobRoutes];
  return [...routes, ...metaRoutes(() => routes)];
}

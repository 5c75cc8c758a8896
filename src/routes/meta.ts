// Service routes: health, the OpenAPI document and its rendered reference.
import { reply, route, type Route } from './route.ts';
import { buildOpenApi, docsPage } from './openapi.ts';
import { healthResponse, openApiResponse, textBody } from './responses.ts';

export function metaRoutes(all: () => Route[]) {
  let document: string | undefined;
  return [
    route({
      method: 'GET',
      path: '/v2/health',
      response: healthResponse,
      access: 'public',
      tag: 'Service',
      summary: 'Liveness and database reachability, and how many projects keep failing their background work.',
      async handler({ services }) {
        await services.sql`select 1`;
        // A count, not ids: anyone may read this, and a private project's id is not theirs to learn.
        const failingProjects = new Set(services.health.failing().map((f) => f.projectId)).size;
        return { status: 'ok', startedAt: services.startedAt.toISOString(), failingProjects };
      },
    }),
    route({
      method: 'GET',
      path: '/v2/openapi.json',
      response: openApiResponse,
      access: 'public',
      tag: 'Service',
      summary: 'This OpenAPI 3.1 document, generated from the route declarations.',
      handler({ services }) {
        document ??= JSON.stringify(
          buildOpenApi(all(), services.config.publicUrl ?? `http://localhost:${services.config.port}`),
        );
        return reply({
          raw: document,
          contentType: 'application/json; charset=utf-8',
          headers: { 'Cache-Control': 'public, max-age=300' },
        });
      },
    }),
    route({
      method: 'GET',
      path: '/v2/docs',
      response: textBody,
      responseType: 'text/html',
      access: 'public',
      tag: 'Service',
      summary: 'The API reference, rendered from openapi.json.',
      handler: () =>
        reply({
          raw: docsPage,
          contentType: 'text/html; charset=utf-8',
          headers: { 'Cache-Control': 'public, max-age=300' },
        }),
    }),
  ];
}

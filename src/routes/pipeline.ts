// Runs a route declaration for one request: resolve the caller, find the project, decide access,
// validate query and body, call the handler, shape the answer. The HTTP layer calls only this.
import * as v from 'valibot';
import { authorize, canReadProject } from '../auth/access.ts';
import type { Caller } from '../auth/principal.ts';
import { checkCookieMutation } from '../auth/same-site.ts';
import { HttpError, notFound, validationFailed } from '../errors.ts';
import type { ProjectRow } from '../db/projects.ts';
import type { Services } from '../services.ts';
import type { IncomingRequest, Reply, Route } from './route.ts';
import { isReply } from './route.ts';

export function createPipeline(services: Services) {
  const { publicUrl, dashboardOrigin } = services.config;
  const sameSite = { dashboardOrigin, apiOrigin: publicUrl ? new URL(publicUrl).origin : undefined };
  return async function execute(route: Route, req: IncomingRequest): Promise<Reply> {
    const caller = await services.credentials.resolve({
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      projectKey: req.headers['x-project-key'] ?? (typeof req.query.key === 'string' ? req.query.key : undefined),
    });
    // A session cookie is sent by the browser wherever a request comes from: changes made with one must
    // come from the dashboard (an ingest's cookie only marks internal traffic and changes nothing).
    if (caller.principal.kind === 'member') checkCookieMutation(req.method, req.headers, sameSite);
    let project: ProjectRow | undefined;
    if (req.params.project !== undefined) {
      project = services.projects.get(req.params.project);
      if (!project) throw notFound(`Project ${req.params.project} not found.`);
    }
    if (route.access !== 'ingest') {
      authorize(route.access, caller.principal, project ? accessInfo(project) : null);
    }
    const query = route.query ? check(route.query, req.query, 'query') : undefined;
    // Sessions and visitors trail their events by up to a checkpoint: a read (or a change, such as marking a
    // visitor internal) first applies what the project's actor holds, here or in the process holding it.
    // Cheap when nothing is pending. Reads across projects apply what every process holds of the projects the
    // caller can read.
    const settles = route.access === 'ingest' ? 'none' : (route.settles ?? (project ? 'project' : 'none'));
    if (settles === 'project' && project) await services.cluster.settle(project.id);
    else if (settles === 'all') await services.cluster.settleAll(readableProjectIds(services, caller));
    // Without a schema the handler validates the body itself (ingest checks each event on its own). Taken
    // from the request object, which lives as long as the request: a megabyte of ingest body is not needed
    // once the handler has read it (see the ingest route), and what stays reachable the collector copies.
    let body: unknown = req.body;
    req.body = undefined;
    if (route.body) {
      if (body === undefined)
        throw new HttpError('VALIDATION_FAILED', 'A JSON body is required.', [{ field: 'body', message: 'required' }]);
      body = check(route.body, body, 'body');
    }
    const result = await route.handler({
      query,
      body,
      bodyEscapes: req.bodyEscapes,
      params: req.params,
      caller,
      project: project as ProjectRow,
      headers: req.headers,
      requestId: req.requestId,
      services,
      // Getters: the HTTP layer makes these only for handlers that read them (see IncomingRequest).
      get ip() {
        return req.ip;
      },
      get signal() {
        return req.signal;
      },
    });
    if (isReply(result)) return result;
    return { status: route.status ?? 200, json: result };
  };
}

export const accessInfo = (p: ProjectRow) => ({
  id: p.id,
  visibility: p.visibility,
  publicVisitorData: p.public_visitor_data,
});

/** Every project the caller may read: the set across-projects reads sum over (and settle first). */
export const readableProjectIds = (services: Services, caller: Caller) =>
  services.projects
    .all()
    .filter((p) => canReadProject(caller.principal, accessInfo(p)))
    .map((p) => p.id)
    .sort();

function check<T>(schema: v.GenericSchema<unknown, T>, input: unknown, where: 'query' | 'body'): T {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  throw validationFailed(
    result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return { field: path ? `${where}.${path}` : where, message: issue.message };
    }),
  );
}

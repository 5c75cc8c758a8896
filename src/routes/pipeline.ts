// Runs a route declaration for one request: resolve the caller, find the project, decide access,
// validate query and body, call the handler, shape the answer. The HTTP layer calls only this.
import * as v from 'valibot';
import { authorize, canReadProject } from '../auth/access.ts';
import { checkCookieMutation } from '../auth/same-site.ts';
import type { Caller } from '../auth/principal.ts';
import { HttpError, notFound, validationFailed } from '../errors.ts';
import type { ProjectRow } from '../db/projects.ts';
import type { Services } from '../services.ts';
import type { IncomingRequest, Reply, Route } from './route.ts';
import { isReply } from './route.ts';
import { isHeavyRead } from './heavy-reads.ts';
import { limitAdmission } from './admission-limits.ts';
import { withReadSignal } from '../query/read-signal.ts';
import { unstorableText } from '../ingest/event-schema.ts';

/** Who calls and what they may reach, decided before a body is read (src/http admits while it arrives). */
export type Admission = { caller: Caller; project: ProjectRow | undefined };

export function createPipeline(services: Services) {
  const { publicUrl, dashboardOrigin } = services.config;
  const sameSite = { dashboardOrigin, apiOrigin: publicUrl ? new URL(publicUrl).origin : undefined };
  /** Text checks of the path and query, the caller, the project and the access decision: everything that
   *  needs no body, so a refused caller costs no read or parse of one. */
  async function admit(route: Route, req: IncomingRequest): Promise<Admission> {
    refuseUnstorableText(req, route, false);
    const caller = await services.credentials.resolve({
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      projectKey: req.headers['x-project-key'] ?? (typeof req.query.key === 'string' ? req.query.key : undefined),
    });
    // A session cookie is sent by the browser wherever a request comes from: changes made with one must
    // come from the dashboard (an ingest's cookie only marks internal traffic and changes nothing).
    if (caller.principal.kind === 'member') checkCookieMutation(req.method, req.headers, sameSite);
    await limitAdmission(services, route, req, caller);
    let project: ProjectRow | undefined;
    if (req.params.project !== undefined) {
      project = services.projects.get(req.params.project);
      if (!project) throw notFound(`Project ${req.params.project} not found.`);
    }
    if (route.access !== 'ingest') {
      authorize(route.access, caller.principal, project ? accessInfo(project) : null);
      if (readsTraits(req)) authorizeTraits(services, caller, project);
    }
    return { caller, project };
  }

  async function execute(route: Route, req: IncomingRequest, admitted?: unknown): Promise<Reply> {
    const { caller, project } = (admitted as Admission | undefined) ?? (await admit(route, req));
    refuseUnstorableText(req, route, true);
    const query = route.query ? check(route.query, req.query, 'query') : undefined;
    // Exports and long ranges wait for a slot of their own (heavy-reads.ts), held until the answer is written.
    const release = isHeavyRead(route, req.query, req.headers.accept)
      ? await services.heavyReads.enter(req.signal)
      : null;
    let handedOver = false;
    try {
      // Reads carry their signal, so a read whose client left stops (read-signal.ts); ingest needs none.
      const answer =
        route.access === 'ingest'
          ? await run(route, req, caller, project, query)
          : await withReadSignal(req.signal, () => run(route, req, caller, project, query));
      if (release && answer.stream) {
        handedOver = true;
        req.signal.addEventListener('abort', release, { once: true });
        return { ...answer, stream: releasing(answer.stream, release) };
      }
      return answer;
    } finally {
      if (release && !handedOver) release();
    }
  }

  async function run(
    route: Route,
    req: IncomingRequest,
    caller: Caller,
    project: ProjectRow | undefined,
    query: unknown,
  ): Promise<Reply> {
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
  }

  return { admit, execute };
}

/** The stream, calling `release` once it ends, however it ends (the writer returns it on an abort). */
async function* releasing<T>(stream: AsyncIterable<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* stream;
  } finally {
    release();
  }
}

export const accessInfo = (p: ProjectRow) => ({
  id: p.id,
  visibility: p.visibility,
  publicVisitorData: p.public_visitor_data,
});

/** Whether a read groups or filters by a visitor's traits (`trait:<key>`): identity values (an email, a
 *  plan), which the spec's access table gives only to detail access. */
function readsTraits(req: IncomingRequest): boolean {
  if (req.params.dimension?.startsWith('trait:')) return true;
  const filter = req.query.filter;
  return typeof filter === 'object' && filter !== null && Object.keys(filter).some((k) => k.startsWith('trait:'));
}

/** Detail access to the project, or across projects to every project the read sums over. */
function authorizeTraits(services: Services, caller: Caller, project: ProjectRow | undefined): void {
  const projects = project
    ? [project]
    : services.projects.all().filter((p) => canReadProject(caller.principal, accessInfo(p)));
  for (const p of projects) authorize('detail', caller.principal, accessInfo(p));
}

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

/** Text PostgreSQL cannot store (U+0000, an unpaired surrogate) in a path parameter, a query value or, for a
 *  route with a body schema, the body is the client's error: a 400 naming it, before any of it reaches SQL.
 *  Ingest checks its body event by event instead (one bad event never sinks the batch). */
function refuseUnstorableText(req: IncomingRequest, route: Route, body: boolean): void {
  const bad = body
    ? route.body && req.bodyEscapes
      ? prefixed('body', unstorableText(req.body, ''))
      : null
    : (prefixed('path', unstorableText(req.params, '')) ?? prefixed('query', unstorableText(req.query, '')));
  if (bad !== null)
    throw validationFailed([
      { field: bad, message: 'must not contain NUL characters or unpaired surrogates (PostgreSQL cannot store them)' },
    ]);
}

/** `query.filter[page]`, as the read conventions name a filter; other paths dotted. */
const prefixed = (where: string, path: string | null) =>
  path === null ? null : path ? `${where}.${path.replace(/^filter\.(.*)$/, 'filter[$1]')}` : where;

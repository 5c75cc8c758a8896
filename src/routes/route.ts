// What a route is: a declaration of method, path, access level, valibot schemas and a handler.
// Handlers get a typed context and return data (or a Reply); they never see the HTTP server's objects.
import type * as v from 'valibot';
import type { AccessLevel } from '../auth/access.ts';
import type { Caller } from '../auth/principal.ts';
import type { ProjectRow } from '../db/projects.ts';
import type { Reply } from '../reply.ts';
import type { Services } from '../services.ts';

export { isReply, reply, type PushSink, type Reply } from '../reply.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The request as the HTTP layer hands it over: plain values, copied out of the server's objects. */
export type IncomingRequest = {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: unknown;
  /** Whether the JSON body held a `\u` escape: only then can a string in it hold U+0000 or an unpaired
   *  surrogate, text PostgreSQL cannot store (src/http/body.ts). */
  bodyEscapes: boolean;
  /** The client's address; reading it on a route without `usesIp` is a programming error (it throws). */
  ip: string;
  requestId: string;
  /** Aborted when the client goes away; may be a getter that creates it on first read. */
  signal: AbortSignal;
};

export type RouteContext<Q, B> = {
  query: Q;
  body: B;
  /** IncomingRequest's: whether a string of the body can hold text PostgreSQL cannot store. */
  bodyEscapes: boolean;
  params: Record<string, string>;
  caller: Caller;
  /** The project named by `{project}` in the path, already access-checked. */
  project: ProjectRow;
  headers: Record<string, string>;
  ip: string;
  requestId: string;
  signal: AbortSignal;
  services: Services;
};

export type RouteResult = Reply | { data: unknown } | Record<string, unknown>;

export type Route<Q = any, B = any> = {
  method: Method;
  /** `/v2/projects/{project}/…`; `{name}` segments become params. */
  path: string;
  access: AccessLevel;
  summary: string;
  /** Longer OpenAPI text (Markdown), before the access rule. */
  description?: string;
  tag: string;
  query?: v.GenericSchema<unknown, Q>;
  body?: v.GenericSchema<unknown, B>;
  /** Status of a successful JSON answer (default 200). */
  status?: number;
  /** Extra OpenAPI text: response shape notes. */
  responses?: Record<number, string>;
  /** The success body, for the OpenAPI document (src/routes/responses.ts); not checked at run time. */
  response?: v.GenericSchema;
  /** Content type of the success body when it is not JSON (the SDK bundles, the reference page). */
  responseType?: string;
  /** Other content types the route answers with, and when (an event stream with its Accept header). */
  otherContent?: Record<string, string>;
  /** The request body's JSON Schema as documented, for a handler that reads its body itself (ingest checks
   *  each event on its own, so one bad event does not refuse the batch). */
  documentedBody?: Record<string, unknown>;
  /** The handler reads `ctx.ip`. Reading the peer address costs uWS a system call per request, so it is
   *  captured only for these routes; ingest routes read it by default (rate limits, visitor hash), and so
   *  do the project reads, which an anonymous caller may make (a rate limit per IP, src/routes/admission-limits.ts). */
  usesIp?: boolean;
  /** Whose pending session and visitor deltas the pipeline applies before the handler (see
   *  ProjectActor.settle): `project`, the default under `{project}`, that project's; `all` every project's,
   *  for the across-projects reads; `none`, the default elsewhere, nothing: for handlers that read no
   *  sessions or visitors rows (realtime and logs answer from the actor's memory, polled every second). */
  settles?: 'project' | 'all' | 'none';
  handler: (ctx: RouteContext<Q, B>) => Promise<RouteResult | Reply> | RouteResult | Reply;
};

export const readsClientIp = (r: Route) =>
  r.usesIp ?? (r.access === 'ingest' || r.access === 'project' || r.access === 'detail');

/** Declares a route; the identity function gives the handler its inferred query and body types. */
export const route = <Q = undefined, B = undefined>(r: Route<Q, B>): Route<Q, B> => r;

// POST /v2/ingest: check the key (rate-limited at admission, before the body: routes/admission-limits.ts),
// check the origin (a public key's), validate each event on its own, enrich, hand the batch to the project's
// actor (here, or in the process that holds it: src/cluster.ts) and answer 202 once its rows are committed.
import * as v from 'valibot';
import { isInternalMember } from '../auth/principal.ts';
import { HttpError, forbidden, unauthorized } from '../errors.ts';
import type { ProjectRow } from '../db/projects.ts';
import { enrich, eventTime, tsProblem, type EnrichedEvent } from '../ingest/enrich.ts';
import {
  ReportSchema,
  isStorable,
  readEnvelope,
  rejection,
  unstorableText,
  validateEvent,
  type Rejection,
} from '../ingest/event-schema.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import { beginUrgent } from '../../actors/sliced.ts';
import type { ProjectHandle } from '../cluster.ts';
import { reply, route, type RouteContext } from './route.ts';
import { ingestBody } from './openapi-extras.ts';
import { ingestResponse } from './responses.ts';

export const ingestRoutes = [
  route({
    method: 'POST',
    path: '/v2/ingest',
    response: ingestResponse,
    documentedBody: ingestBody(),
    access: 'ingest',
    tag: 'Ingest',
    status: 202,
    summary:
      'Send events: {"events": [Event…], "reports"?: […]} or one Event, as application/json or text/plain. ' +
      'Public key by X-Project-Key or ?key= (from an allowed origin), or secret key by bearer. At most 500 events; ' +
      'each bad event is rejected on its own. Answers {accepted, duplicates, rejected[]}.',
    responses: { 202: 'Accepted: {accepted, duplicates, rejected: [{index, code, reason, field, message}]}' },
    handler: ingest,
  }),
];

async function ingest(ctx: RouteContext<undefined, undefined>) {
  // A live fan-out under way waits while this request is served (actors/sliced.ts).
  const done = beginUrgent();
  try {
    return await accept(ctx);
  } finally {
    done();
  }
}

async function accept(ctx: RouteContext<undefined, undefined>) {
  const batch = await readBatch(ctx);
  const outcome = await batch.actor.ingest(batch.rows, batch.meta);
  if (batch.reports.length > 0) logReports(batch.actor, batch.project, batch.reports, ctx.requestId);
  return reply({
    status: 202,
    json: {
      accepted: outcome.accepted,
      duplicates: outcome.duplicates,
      rejected: batch.rejected.map(({ event: _e, ...r }) => r),
    },
  });
}

/** The request's batch, read and enriched before it waits for its flush; this function has returned by
 *  then. The parsed body is released here (ctx.body): a batch waits about as long as a flush takes, and
 *  kept reachable meanwhile, its raw events would be copied by every young-generation collection. */
async function readBatch(ctx: RouteContext<undefined, undefined>) {
  const { services, caller, headers } = ctx;
  const p = caller.principal;
  if (p.kind !== 'publicKey' && p.kind !== 'secretKey')
    throw unauthorized('Send a project key: X-Project-Key / ?key=pk_… or Authorization: Bearer sk_….');
  const project = services.projects.get(p.projectId);
  if (!project) throw unauthorized('Unknown project key.');
  const keyKind = p.kind === 'publicKey' ? 'public' : 'secret';
  const actor = await services.cluster.project(project.id);

  // Refusals of the whole request are lines too (the rate limit was taken at admission, so they come no
  // faster than it lets requests through): a site whose events never arrive finds why in its stream.
  const logged = (kind: 'auth' | 'ingest', err: HttpError, data: Record<string, unknown>): HttpError => {
    actor.log({
      level: 'warn',
      kind,
      source: 'api',
      visitor: null,
      session: null,
      message: `Refused a request: ${err.message}`,
      data: { requestId: ctx.requestId, code: err.code, ...data },
    });
    return err;
  };
  if (keyKind === 'public' && !originAllowed(headers.origin, project.allowed_origins)) {
    const origin = headers.origin?.slice(0, 200) ?? null;
    throw logged('auth', forbidden(`Origin ${origin ?? '(none)'} is not in this project's allowedOrigins.`), {
      origin,
    });
  }

  const envelope = readEnvelope(ctx.body);
  ctx.body = undefined;
  if (!envelope.ok)
    throw logged(
      'ingest',
      new HttpError('VALIDATION_FAILED', envelope.message, [{ field: envelope.field, message: envelope.message }]),
      { field: envelope.field },
    );

  const now = Date.now();
  const rejected: Rejection[] = [];
  const rows: EnrichedEvent[] = [];
  const facts = {
    projectId: project.id,
    salt: project.salt,
    previousSalt: project.previous_salt,
    keyKind,
    ip: ctx.ip,
    userAgent: headers['user-agent'] ?? null,
    headers,
    trustProxy: services.config.trustProxy,
    internal: isInternalMember(caller.sessionMember, project.id),
    receivedAt: now,
  } as const;
  const rejectionLogs: PendingLog[] = [];
  const reject = (r: Rejection, raw: unknown) => {
    rejected.push(r);
    rejectionLogs.push(rejectionLine(r, raw));
  };
  envelope.events.forEach((raw, index) => {
    const checked = validateEvent(raw, index, ctx.bodyEscapes);
    if (!checked.ok) return reject(checked.rejection, raw);
    const e = checked.event;
    const at = eventTime(e, now);
    const problem =
      tsProblem(at, keyKind, now, project.retention_days) ??
      (e.context && keyKind === 'public' ? 'context is accepted only with a secret key' : null);
    if (problem) return reject(rejection(index, raw, problem.startsWith('context') ? 'context' : 'ts', problem), raw);
    rows.push(enrich(e, facts, services.lookups, at));
  });
  const meta = { requestId: ctx.requestId, rejected: rejected.length, rejectionLogs };
  return { actor, project, rows, meta, rejected, reports: envelope.reports };
}

/** The line of a rejected event, under the visitor and session it names (when they are ids a valid event
 *  could carry), so the stream's visitor filter finds why a visitor's event is missing. */
const rejectionLine = (r: Rejection, raw: unknown): PendingLog => ({
  level: 'warn',
  kind: 'ingest',
  source: 'api',
  visitor: sentId(raw, 'visitor'),
  session: sentId(raw, 'session'),
  message: `Rejected event #${r.index}${r.event ? ` (${r.event})` : ''}: ${r.message}`,
  data: { code: r.code, reason: r.reason, index: r.index, event: r.event, field: r.field },
});

const sentId = (raw: unknown, key: 'visitor' | 'session'): string | null => {
  const id = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
  return typeof id === 'string' && id.length >= 1 && id.length <= 128 && isStorable(id) ? id : null;
};

/** The widget build's diagnostics reach the log stream only when the project asks for them. */
function logReports(actor: ProjectHandle, project: ProjectRow, reports: unknown[], requestId: string) {
  if (!project.widget_reports) return;
  for (const raw of reports) {
    const r = v.safeParse(ReportSchema, raw);
    if (!r.success || unstorableText(r.output, '') !== null) continue; // diagnostics only: a bad one is dropped
    actor.log({
      level: r.output.level,
      kind: 'pipeline',
      source: 'sdk',
      visitor: null,
      session: null,
      message: r.output.message,
      data: { ...r.output.data, requestId },
    });
  }
}

/** An empty list allows every origin; `https://*.example.com` allows its subdomains. */
export function originAllowed(origin: string | undefined, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  if (!origin) return false;
  const o = origin.toLowerCase();
  return allowed.some((a) => {
    if (!a.includes('*.')) return a === o;
    const [scheme, host] = a.split('://*.');
    return o.startsWith(`${scheme}://`) && (o.endsWith(`.${host}`) || o === `${scheme}://${host}`);
  });
}

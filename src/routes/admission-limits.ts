// Rate limits decided at admission, before a body is read: ingest per key and client IP (and ingest
// without a key refused), and reads without a credential per client IP. A limited caller costs no body
// read, parse or database work.
import type { Caller } from '../auth/principal.ts';
import { HttpError, unauthorized } from '../errors.ts';
import type { Services } from '../services.ts';
import type { IncomingRequest, Route } from './route.ts';

export async function limitAdmission(services: Services, route: Route, req: IncomingRequest, caller: Caller) {
  const p = caller.principal;
  if (route.access === 'ingest' && p.kind !== 'publicKey' && p.kind !== 'secretKey')
    throw unauthorized('Send a project key: X-Project-Key / ?key=pk_… or Authorization: Bearer sk_….');
  if (route.access === 'ingest' && (p.kind === 'publicKey' || p.kind === 'secretKey')) {
    const project = services.projects.get(p.projectId);
    if (!project) return; // the ingest route answers 401 for a key whose project is gone
    const keyKind = p.kind === 'publicKey' ? 'public' : 'secret';
    const limit =
      keyKind === 'public'
        ? await services.rateLimiter.take(`${project.public_key}:${req.ip}`)
        : await services.secretRateLimiter.take(`${project.id}:${req.ip}`);
    if (limit.ok) return;
    // A site whose events stop arriving finds why in its log stream.
    const actor = await services.cluster.project(project.id);
    actor.log(
      {
        level: 'warn',
        kind: 'transport',
        source: 'api',
        visitor: null,
        session: null,
        message: `Rate limited a ${keyKind}-key request; retry after ${limit.retryAfterSeconds}s`,
        data: { requestId: req.requestId, retryAfter: limit.retryAfterSeconds, keyKind },
      },
      { rateLimited: 1 },
    );
    throw rateLimited(limit.retryAfterSeconds);
  }
  if (p.kind === 'anonymous' && (route.access === 'project' || route.access === 'detail')) {
    const limit = await services.readRateLimiter.take(req.ip);
    if (!limit.ok) throw rateLimited(limit.retryAfterSeconds);
  }
}

const rateLimited = (seconds: number) =>
  new HttpError('RATE_LIMITED', `Too many requests; retry after ${seconds} seconds.`, [], {
    'Retry-After': String(seconds),
  });

// The live WebSocket /v2/projects/{project}/live: the same credentials as REST (header or cookie at
// the upgrade, or a first message {"type":"auth","token":"at_live_…"}); then the realtime snapshot
// while it changes, and log lines when the caller has detail access.
import * as v from 'valibot';
import { authorize, canReadDetail } from '../auth/access.ts';
import type { Caller } from '../auth/principal.ts';
import { HttpError } from '../errors.ts';
import type { SocketRoute } from '../http/websocket.ts';
import { liveTopic, logsTopic } from '../../actors/live-hub.ts';
import type { Services } from '../services.ts';
import { accessInfo } from './pipeline.ts';

const AUTH_WAIT_MS = 10_000;
const AuthMessage = v.object({ type: v.literal('auth'), token: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });

/** WebSocket close codes mirroring the HTTP statuses (4000 + status). */
const closeCode = (err: unknown) => (err instanceof HttpError ? 4000 + err.status : 1011);

export function liveRoute(services: Services): SocketRoute {
  return {
    path: '/v2/projects/{project}/live',
    open(req, peer) {
      const projectId = req.params.project!;
      let state: 'waiting' | 'open' | 'closed' = 'waiting';
      const fail = (err: unknown) => {
        state = 'closed';
        peer.close(closeCode(err), err instanceof HttpError ? err.message.slice(0, 120) : 'internal error');
      };

      async function start(caller: Caller) {
        const project = services.projects.get(projectId);
        if (!project) throw new HttpError('NOT_FOUND', `Project ${projectId} not found.`);
        authorize('project', caller.principal, accessInfo(project));
        if (state === 'closed') return;
        state = 'open';
        peer.subscribe(liveTopic(projectId));
        const detail = canReadDetail(caller.principal, accessInfo(project));
        if (detail) peer.subscribe(logsTopic(projectId));
        services.live.watch(projectId);
        peer.send(JSON.stringify({ type: 'hello', project: projectId, logs: detail }));
        const snapshot = await services.live.snapshot(projectId);
        if (state === 'open') peer.send(snapshot);
      }

      const hasCredential = Boolean(req.headers.authorization || req.headers.cookie?.includes('session_token'));
      const timer = hasCredential ? null : setTimeout(() => {
        // No credential arrived: a public project is readable by anyone, a private one is not.
        if (state === 'waiting') services.credentials.resolve({}).then(start).catch(fail);
      }, AUTH_WAIT_MS);
      if (hasCredential) {
        services.credentials.resolve({ authorization: req.headers.authorization, cookie: req.headers.cookie }).then(start).catch(fail);
      }

      return {
        message(text) {
          if (state !== 'waiting') return;
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return fail(new HttpError('BAD_REQUEST', 'Messages are JSON.'));
          }
          const auth = v.safeParse(AuthMessage, parsed);
          if (!auth.success) return fail(new HttpError('UNAUTHORIZED', 'Send {"type":"auth","token":"…"} first.'));
          if (timer) clearTimeout(timer);
          services.credentials.resolve({ authorization: `Bearer ${auth.output.token}`, cookie: req.headers.cookie }).then(start).catch(fail);
        },
        close() {
          state = 'closed';
          if (timer) clearTimeout(timer);
        },
      };
    },
  };
}

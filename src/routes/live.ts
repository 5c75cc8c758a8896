// The live WebSocket /v2/projects/{project}/live: the same credentials as REST (header or cookie at
// the upgrade, or a first message {"type":"auth","token":"at_live_…"}); then the realtime snapshot
// while it changes, and log lines when the caller has detail access. On a public project a socket without
// a credential starts at once, as anyone's; a token it sends later adds the log lines it may read.
import * as v from 'valibot';
import { authorize, canReadDetail } from '../auth/access.ts';
import type { Caller } from '../auth/principal.ts';
import { HttpError } from '../errors.ts';
import type { SocketRoute } from './socket-route.ts';
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
      /** A credential was given (header, cookie, or an auth message as it arrives): the one the socket
       *  goes by, so later messages are ignored, even while it is still being checked. */
      let credentialed = false;
      /** Leaves the project's hub (set once the socket joined it). */
      let leave: (() => void) | null = null;
      const fail = (err: unknown) => {
        state = 'closed';
        peer.close(closeCode(err), err instanceof HttpError ? err.message.slice(0, 120) : 'internal error');
      };

      /** Opens the feed for `caller`; for one with a credential after an anonymous start (a public project),
       *  adds the log lines if it may read them, with a new hello saying so. */
      async function start(caller: Caller, withCredential: boolean) {
        // An anonymous start that resolves after the credential's has nothing to add.
        if (state === 'closed' || (state === 'open' && !withCredential)) return;
        const project = services.projects.get(projectId);
        if (!project) throw new HttpError('NOT_FOUND', `Project ${projectId} not found.`);
        authorize('project', caller.principal, accessInfo(project));
        const first = state === 'waiting';
        state = 'open';
        const detail = canReadDetail(caller.principal, accessInfo(project));
        if (first) leave = services.live.join(projectId, peer);
        if (detail) services.live.follow(projectId, peer);
        peer.send(JSON.stringify({ type: 'hello', project: projectId, logs: detail }));
        if (!first) return;
        const snapshot = await services.live.snapshot(projectId);
        if (state === 'open') peer.send(snapshot);
      }

      const hasCredential = Boolean(req.headers.authorization || req.headers.cookie?.includes('session_token'));
      let timer: ReturnType<typeof setTimeout> | null = null;
      if (hasCredential) {
        credentialed = true;
        services.credentials
          .resolve({ authorization: req.headers.authorization, cookie: req.headers.cookie })
          .then((c) => start(c, true))
          .catch(fail);
      } else if (services.projects.get(projectId)?.visibility === 'public') {
        // Anyone may read a public project: the feed starts at once, and a token sent later adds the log lines.
        services.credentials
          .resolve({})
          .then((c) => start(c, false))
          .catch(fail);
      } else {
        // A private project (or none): wait for a token as the first message, then refuse as anonymous.
        timer = setTimeout(() => {
          if (state === 'waiting')
            services.credentials
              .resolve({})
              .then((c) => start(c, false))
              .catch(fail);
        }, AUTH_WAIT_MS);
      }

      return {
        message(text) {
          if (state === 'closed' || credentialed) return;
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return state === 'waiting' ? fail(new HttpError('BAD_REQUEST', 'Messages are JSON.')) : undefined;
          }
          const auth = v.safeParse(AuthMessage, parsed);
          if (!auth.success)
            return state === 'waiting'
              ? fail(new HttpError('UNAUTHORIZED', 'Send {"type":"auth","token":"…"} first.'))
              : undefined;
          if (timer) clearTimeout(timer);
          credentialed = true;
          services.credentials
            .resolve({ authorization: `Bearer ${auth.output.token}`, cookie: req.headers.cookie })
            .then((c) => start(c, true))
            .catch(fail);
        },
        close() {
          state = 'closed';
          if (timer) clearTimeout(timer);
          leave?.();
        },
      };
    },
  };
}

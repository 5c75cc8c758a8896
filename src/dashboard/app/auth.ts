// Who the dashboard acts as: a pasted token (api.ts keeps it), a cookie session from the identity
// provider (read from GET /v2/auth/session; a 404 or 401 there means nobody is signed in), or nobody,
// who still sees public projects.
import { computed, signal } from '@preact/signals';
import { ApiError, get, send, setToken, token } from './api.ts';
import { projects } from './projects-store.ts';
import { matchRoute, navigate, place } from './router.ts';

export type Session = {
  user: { id: string; login: string; name: string | null; avatarUrl: string | null } | null;
  role: string | null;
  isAdmin: boolean;
};

export const session = signal<Session | null>(null);

/** The sign-in route when the server has an identity provider configured (told by the page's <meta>). */
export const signInPath = document.querySelector<HTMLMetaElement>('meta[name="loupe-signin"]')?.content || null;

export const signedIn = computed(() => Boolean(token.value || session.value?.user));

export async function loadSession(): Promise<void> {
  try {
    session.value = await get<Session>('/v2/auth/session');
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 401)) session.value = null;
    else throw err;
  }
}

export function signInHref(): string | null {
  if (!signInPath) return null;
  return `${signInPath}?redirect=${encodeURIComponent(location.pathname + location.search)}`;
}

export async function signOut(): Promise<void> {
  leavePrivateProject();
  setToken(null);
  if (session.value?.user) {
    try {
      await send('POST', '/v2/auth/signout');
    } catch {
      // Already ended (or no sign-in routes): the session read below says where things stand.
    }
    await loadSession().catch(() => (session.value = null));
  }
}

/** Signed out, a private project's page could only answer 404s: the projects list is where to be. A public
 *  project's page stays, since it still reads. Done before the credential goes, so no read is refused. */
function leavePrivateProject(): void {
  const route = matchRoute(place.value.path);
  if (route?.name !== 'project') return;
  const shown = projects.value.list?.find((p) => p.id === route.project);
  if (shown?.visibility !== 'public') navigate('/');
}

/** Changes whenever the credential does: reads keyed by it load again after signing in or out. */
export const authKey = computed(() => `${token.value ?? ''}|${session.value?.user?.id ?? ''}`);

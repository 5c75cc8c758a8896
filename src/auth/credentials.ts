// Resolves a request's credential into a Caller: Bearer at_ token, sk_ secret key or cron secret,
// the session cookie, or a pk_ public key. A credential that is sent but not valid is a 401, never anonymous.
import { unauthorized } from '../errors.ts';
import type { SessionLookup } from '../db/members.ts';
import type { TokenLookup } from '../db/tokens.ts';
import type { Caller, MemberPrincipal, Principal } from './principal.ts';
import { hashSecret, safeEqual } from '../secrets.ts';
import { readCookie } from './cookies.ts';
import { TtlCache } from './ttl-cache.ts';

export type CredentialInput = {
  authorization?: string;
  cookie?: string;
  projectKey?: string;
};

export type CredentialSources = {
  findToken: (value: string) => Promise<TokenLookup | undefined>;
  findSession: (token: string) => Promise<SessionLookup | undefined>;
  findSecretKeyProject: (value: string) => Promise<string | undefined>;
  findPublicKeyProject: (value: string) => string | undefined;
  onTokenUsed?: (tokenId: string) => void;
  cronSecret?: string;
  cookiePrefix: string;
  /** How long a looked-up credential is trusted before it is read again (revocation here is immediate). */
  cacheMs?: number;
  now?: () => number;
};

export type CredentialResolver = {
  resolve: (input: CredentialInput) => Promise<Caller>;
  /** Forgets a cached token or session by the hash of its value (on revoke, sign-out, role change). */
  forget: (hash: string) => void;
  forgetAll: () => void;
};

export function createCredentialResolver(src: CredentialSources): CredentialResolver {
  const now = src.now ?? Date.now;
  // Keyed by the credential's value, not its hash: a SHA-256 per request showed in profiles. Each entry
  // keeps the hash so forget(hash) (revocation, sign-out) still drops it at once.
  const cache = new TtlCache<string, { hash: string; principal: Principal | null }>(10_000, src.cacheMs ?? 10_000, now);

  // Lookups under way, shared by the requests that come meanwhile: when an entry expires, thousands of
  // long-polls with one token come back within a moment, and each used to read it again. A forget while a
  // lookup is under way leaves its answer uncached, and later requests read afresh.
  const loading = new Map<string, Promise<Principal | null>>();
  let generation = 0;

  function cached(value: string, load: () => Promise<Principal | null>): Promise<Principal | null> {
    const hit = cache.get(value);
    if (hit !== undefined) return Promise.resolve(hit.principal);
    const known = loading.get(value);
    if (known) return known;
    const started = generation;
    const pending = load()
      .then((principal) => {
        if (generation === started) cache.set(value, { hash: hashSecret(value), principal });
        return principal;
      })
      .finally(() => {
        if (loading.get(value) === pending) loading.delete(value);
      });
    loading.set(value, pending);
    return pending;
  }
  const forgetLoading = () => {
    generation++;
    loading.clear();
  };

  async function fromBearer(value: string): Promise<Principal> {
    if (src.cronSecret && !value.startsWith('at_') && !value.startsWith('sk_') && safeEqual(value, src.cronSecret)) {
      return { kind: 'cron' };
    }
    let p: Principal | null = null;
    if (value.startsWith('at_')) {
      p = await cached(value, async () => tokenPrincipal(await src.findToken(value)));
      // A cached token can expire while cached: check its expiry on every use.
      if (p?.kind === 'token' && p.expiresAt && p.expiresAt.getTime() <= now()) p = null;
      if (p?.kind === 'token') src.onTokenUsed?.(p.tokenId);
    } else if (value.startsWith('sk_')) {
      p = await cached(value, async () => {
        const projectId = await src.findSecretKeyProject(value);
        return projectId ? { kind: 'secretKey', projectId } : null;
      });
    }
    if (!p) throw unauthorized('Unknown, revoked or expired credential.');
    return p;
  }

  function tokenPrincipal(row: TokenLookup | undefined): Principal | null {
    if (!row || row.revoked_at) return null;
    return { kind: 'token', tokenId: row.id, scope: row.scope, projectIds: row.project_ids, expiresAt: row.expires_at };
  }

  async function fromCookie(header: string | undefined): Promise<MemberPrincipal | null> {
    const token = sessionCookie(header, src.cookiePrefix);
    if (!token) return null;
    const p = await cached(token, async () => {
      const s = await src.findSession(token);
      if (!s) return null;
      return {
        kind: 'member',
        userId: s.user_id,
        login: s.login,
        name: s.name,
        avatarUrl: s.avatar_url,
        role: s.role,
        projectIds: s.role === 'owner' ? null : s.project_ids,
        sessionExpiresAt: s.expires_at,
      } satisfies MemberPrincipal;
    });
    return p?.kind === 'member' && p.sessionExpiresAt.getTime() > now() ? p : null;
  }

  return {
    async resolve(input) {
      const sessionMember = input.cookie ? await fromCookie(input.cookie) : null;
      const bearer = bearerOf(input.authorization);
      if (bearer !== undefined) return { principal: await fromBearer(bearer), sessionMember };
      // A public key names the sender (the SDK); a cookie beside it only marks internal traffic.
      if (input.projectKey) {
        const projectId = src.findPublicKeyProject(input.projectKey);
        if (!projectId) throw unauthorized('Unknown project key.');
        return { principal: { kind: 'publicKey', projectId }, sessionMember };
      }
      if (sessionMember) return { principal: sessionMember, sessionMember };
      return { principal: { kind: 'anonymous' }, sessionMember: null };
    },
    forget: (hash) => {
      forgetLoading();
      cache.deleteWhere((entry) => entry.hash === hash);
    },
    forgetAll: () => {
      forgetLoading();
      cache.clear();
    },
  };
}

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('The Authorization header must be "Bearer <credential>".');
  return m[1];
}

/** The session cookie value: `<prefix>.session_token`, or its `__Secure-` variant over HTTPS. A value that
 *  is not valid percent-encoding, or holds a control character, is no credential: it is ignored like a
 *  cookie of another name, so a proxy forwarding a mangled one never costs the visitor's events. */
export function sessionCookie(header: string | undefined, prefix: string): string | undefined {
  return readCookie(header, [`__Secure-${prefix}.session_token`, `${prefix}.session_token`]);
}

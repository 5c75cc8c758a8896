// Who is calling: the principal a credential resolves to. Pure types and predicates, no I/O.
import type { Role } from '../db/members.ts';
import type { TokenScope } from '../db/tokens.ts';

export type MemberPrincipal = {
  kind: 'member';
  userId: string;
  login: string;
  name: string | null;
  avatarUrl: string | null;
  role: Role;
  /** null: every project (owners, and admins without a list). */
  projectIds: string[] | null;
  sessionExpiresAt: Date;
};

export type Principal =
  | { kind: 'anonymous' }
  | MemberPrincipal
  | { kind: 'token'; tokenId: string; scope: TokenScope; projectIds: string[] | null; expiresAt: Date | null }
  | { kind: 'secretKey'; projectId: string }
  | { kind: 'publicKey'; projectId: string }
  | { kind: 'cron' };

/** The caller of one request: the credential that decides access, and the session cookie seen beside it
 *  (an ingest request through a site's proxy path carries a key and, maybe, a member's cookie). */
export type Caller = { principal: Principal; sessionMember: MemberPrincipal | null };

export const anonymous: Caller = { principal: { kind: 'anonymous' }, sessionMember: null };

/** Any valid credential counts as signed in (spec: 401 signed out vs 403 signed in). */
export const isSignedIn = (p: Principal) => p.kind !== 'anonymous';

export const listsProject = (projectIds: string[] | null, projectId: string) =>
  projectIds === null || projectIds.includes(projectId);

/** Marks internal traffic: a signed-in owner's or admin's session cookie on an ingest request. */
export const isInternalMember = (m: MemberPrincipal | null, projectId: string) =>
  m !== null && (m.role === 'owner' || (m.role === 'admin' && listsProject(m.projectIds, projectId)));

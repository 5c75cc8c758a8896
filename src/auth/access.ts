// The one access decision every route goes through, with the spec's statuses: a private project the
// caller cannot read is 404 (never 403); readable but not allowed is 401 signed out and 403 signed in.
import { forbidden, notFound, unauthorized } from '../errors.ts';
import type { Principal } from './principal.ts';
import { isSignedIn, listsProject } from './principal.ts';

export type AccessLevel =
  'public' | 'project' | 'detail' | 'admin' | 'owner' | 'organization' | 'members' | 'sql' | 'ingest' | 'cron';

export type ProjectAccessInfo = { id: string; visibility: 'public' | 'private'; publicVisitorData: boolean };

export function canReadProject(p: Principal, project: ProjectAccessInfo): boolean {
  if (project.visibility === 'public') return true;
  switch (p.kind) {
    case 'member':
      return p.role === 'owner' || listsProject(p.projectIds, project.id);
    case 'token':
      return listsProject(p.projectIds, project.id);
    default:
      // Project keys only send events; the cron secret only runs jobs.
      return false;
  }
}

export function canReadDetail(p: Principal, project: ProjectAccessInfo): boolean {
  if (project.visibility === 'public' && project.publicVisitorData) return true;
  if (p.kind === 'member') return p.role === 'owner' || (p.role !== 'viewer' && listsProject(p.projectIds, project.id));
  if (p.kind === 'token') return listsProject(p.projectIds, project.id);
  return false;
}

export function canAdminProject(p: Principal, projectId: string): boolean {
  if (p.kind === 'member') return p.role === 'owner' || (p.role === 'admin' && listsProject(p.projectIds, projectId));
  if (p.kind === 'token') return p.scope === 'admin' && listsProject(p.projectIds, projectId);
  return false;
}

/** The SQL route: an owner; an admin or analyst listing the project; a `sql` or `admin` token listing it. */
export function canRunSql(p: Principal, projectId: string): boolean {
  if (p.kind === 'member')
    return (
      p.role === 'owner' || ((p.role === 'admin' || p.role === 'analyst') && listsProject(p.projectIds, projectId))
    );
  if (p.kind === 'token') return (p.scope === 'sql' || p.scope === 'admin') && listsProject(p.projectIds, projectId);
  return false;
}

/** Organisation-wide changes (creating projects and tokens): an owner, or an admin / admin token listing no projects. */
export function canAdminOrganization(p: Principal): boolean {
  if (p.kind === 'member') return p.role === 'owner' || (p.role === 'admin' && p.projectIds === null);
  if (p.kind === 'token') return p.scope === 'admin' && p.projectIds === null;
  return false;
}

/** Throws the right error when the principal may not use a route of this level (on this project). */
export function authorize(level: AccessLevel, p: Principal, project: ProjectAccessInfo | null): void {
  if (level === 'public') return;
  if (level === 'cron') {
    if (p.kind !== 'cron') throw refused(p, 'This route needs the cron secret.');
    return;
  }
  if (level === 'organization') {
    if (!canAdminOrganization(p)) throw refused(p);
    return;
  }
  // Reading the member list: owners and admins (members, not tokens: the list names people).
  if (level === 'members') {
    if (!(p.kind === 'member' && (p.role === 'owner' || p.role === 'admin'))) throw refused(p);
    return;
  }
  if (level === 'owner' && project === null) {
    if (!(p.kind === 'member' && p.role === 'owner')) throw refused(p);
    return;
  }
  if (level === 'ingest') throw new Error('ingest access is decided by the ingest route (key and origin)');
  if (project === null) throw new Error(`access level ${level} needs a project`);
  if (!canReadProject(p, project)) throw notFound(`Project ${project.id} not found.`);
  const allowed =
    level === 'project' ||
    (level === 'detail' && canReadDetail(p, project)) ||
    (level === 'admin' && canAdminProject(p, project.id)) ||
    (level === 'sql' && canRunSql(p, project.id)) ||
    (level === 'owner' && p.kind === 'member' && p.role === 'owner');
  if (!allowed) throw refused(p);
}

const refused = (p: Principal, why?: string) =>
  isSignedIn(p)
    ? forbidden(why ?? 'Your credential does not allow this.')
    : unauthorized(why ?? 'Sign in or send a token to do this.');

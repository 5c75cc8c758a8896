// /v2/members: the dashboard's members (dashboard_users). Owners and admins list them; only an owner adds,
// changes or removes one. The last owner cannot be removed or demoted (409). A change ends cached sessions.
import * as v from 'valibot';
import {
  LastOwnerError,
  changeMember,
  findMemberByLogin,
  insertMember,
  listMembers,
  removeMember,
  type MemberRow,
} from '../db/members.ts';
import { conflict, notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { memberRemovedResponse, memberResponse, membersResponse } from './responses-members.ts';
import { route } from './route.ts';
import { atLeastOneField, iso, projectIdSchema } from './schemas.ts';

const role = v.picklist(['owner', 'admin', 'analyst', 'viewer'], 'must be owner, admin, analyst or viewer');
const projectIds = v.nullable(
  v.pipe(
    v.array(projectIdSchema),
    v.minLength(1, 'list at least one project, or send null for all'),
    v.maxLength(1000),
  ),
);
const name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200));
// The provider's login as members are matched by it (preferred_username, email or sub).
const login = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200),
  v.regex(/^[^\s\u0000-\u001f]+$/, 'must hold no spaces or control characters'),
);

const AddMember = v.strictObject({
  login,
  role,
  projectIds: v.optional(projectIds, null),
  name: v.optional(v.nullable(name), null),
});
const ChangeMember = v.pipe(
  v.strictObject({ role: v.optional(role), projectIds: v.optional(projectIds), name: v.optional(name) }),
  v.check(atLeastOneField, 'Send at least one of role, projectIds, name.'),
);

export const memberView = (m: MemberRow) => ({
  id: m.id,
  login: m.login,
  name: m.name,
  avatarUrl: m.avatar_url ?? null,
  role: m.role,
  // An owner sees every project, whatever was listed.
  projectIds: m.role === 'owner' ? null : m.project_ids,
  createdAt: iso(m.created_at),
  lastSeenAt: iso(m.last_seen_at),
});

export const memberRoutes = [
  route({
    method: 'GET',
    path: '/v2/members',
    response: membersResponse,
    access: 'members',
    tag: 'Members',
    summary: 'Every member: id, login, name, avatarUrl, role, projectIds (null: all), createdAt, lastSeenAt.',
    async handler({ services }) {
      return { data: (await listMembers(services.sql)).map(memberView) };
    },
  }),
  route({
    method: 'POST',
    path: '/v2/members',
    response: memberResponse,
    access: 'owner',
    tag: 'Members',
    status: 201,
    summary:
      "Add a member by the provider's login, with a role and, for non-owners, projects (null: all). 409 if the login exists.",
    body: AddMember,
    async handler({ body, services }) {
      // Logins are matched without case at sign-in, so two that differ only in case would be one person.
      const taken = await findMemberByLogin(services.sql, body.login);
      const row = taken ? undefined : await insertMember(services.sql, body);
      if (!row) throw conflict(`${taken?.login ?? body.login} is already a member.`);
      return { data: memberView(row) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v2/members/{member}',
    response: memberResponse,
    access: 'owner',
    tag: 'Members',
    summary: "Change a member's role, projects or name ({member}: id or login). 409 when it would leave no owner.",
    body: ChangeMember,
    async handler({ params, body, services }) {
      const changed = await lastOwnerIsConflict(() => changeMember(services.sql, params.member!, body));
      if (!changed) throw notFound(`No member ${params.member}.`);
      forgetSessions(services, changed.sessionHashes);
      return { data: memberView(changed.member) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/v2/members/{member}',
    response: memberRemovedResponse,
    access: 'owner',
    tag: 'Members',
    summary: 'Remove a member ({member}: id or login); their sessions end at once. 409 for the last owner.',
    async handler({ params, services }) {
      const removed = await lastOwnerIsConflict(() => removeMember(services.sql, params.member!));
      if (!removed) throw notFound(`No member ${params.member}.`);
      forgetSessions(services, removed.sessionHashes);
      return { data: { id: removed.member.id, login: removed.member.login, removed: true } };
    },
  }),
];

async function lastOwnerIsConflict<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (err instanceof LastOwnerError) throw conflict(err.message);
    throw err;
  }
}

/** Cached look-ups of these sessions go now, so the change holds from the member's next request. */
function forgetSessions(services: Services, hashes: string[]) {
  for (const hash of hashes) services.credentials.forget(hash);
}

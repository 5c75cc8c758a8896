// Dashboard members (the dashboard_users allowlist) and their sign-in sessions: adding, changing and
// removing members (never the last owner), starting, sliding and ending sessions.
import type { Sql, TransactionSql } from 'postgres';
import { hashSecret, newId, newSessionToken } from '../secrets.ts';
import { query } from './queries.ts';

export type Role = 'owner' | 'admin' | 'analyst' | 'viewer';

export type MemberRow = {
  id: string;
  login: string;
  role: Role;
  project_ids: string[] | null;
  name: string | null;
  avatar_url?: string | null;
  created_at: Date;
  last_seen_at?: Date | null;
};

export type SessionLookup = {
  session_id: string;
  expires_at: Date;
  last_seen_at: Date;
  user_id: string;
  login: string;
  name: string | null;
  avatar_url: string | null;
  role: Role;
  project_ids: string[] | null;
};

export const SESSION_DAYS = 30;
/** A session's use is written at most this often: it moves "last seen" and, past a day, the session's end. */
const TOUCH_MS = 3_600_000;

/** A change that would leave no owner (removing or demoting the last one). */
export class LastOwnerError extends Error {}

/** Adds a member, or changes the role and projects of an existing login (the CLI's `user add`). */
export async function addMember(
  sql: Sql,
  input: { login: string; role: Role; projectIds: string[] | null; name?: string | null },
) {
  return sql.begin(async (tx) => {
    const [existing] = await query<MemberRow>(tx, 'find_member', [input.login]);
    if (existing && existing.login === input.login) await keepAnOwner(tx, existing, input.role);
    const [row] = await query<MemberRow>(tx, 'upsert_user', [
      newId('usr'),
      input.login,
      input.role,
      input.projectIds,
      input.name ?? null,
    ]);
    return row!;
  });
}

/** Adds a new member; undefined when the login is taken. */
export async function insertMember(
  sql: Sql,
  input: { login: string; role: Role; projectIds: string[] | null; name: string | null },
): Promise<MemberRow | undefined> {
  const [row] = await query<MemberRow>(sql, 'insert_member', [
    newId('usr'),
    input.login,
    input.role,
    input.projectIds,
    input.name,
  ]);
  return row;
}

export const listMembers = (sql: Sql) => query<MemberRow>(sql, 'list_members');

export async function findMember(sql: Sql | TransactionSql, idOrLogin: string): Promise<MemberRow | undefined> {
  const [row] = await query<MemberRow>(sql, 'find_member', [idOrLogin]);
  return row;
}

/** The member a provider's login names: by login only, never by id. */
export async function findMemberByLogin(sql: Sql, login: string): Promise<MemberRow | undefined> {
  const [row] = await query<MemberRow>(sql, 'find_member_by_login', [login]);
  return row;
}

export type MemberChange = { role?: Role; projectIds?: string[] | null; name?: string };

/** Changes a member; undefined when there is none. Throws LastOwnerError for the last owner's demotion.
 *  Answers the hashes of the member's sessions, whose cached look-ups must be dropped. */
export async function changeMember(sql: Sql, idOrLogin: string, change: MemberChange) {
  return sql.begin(async (tx) => {
    const member = await findMember(tx, idOrLogin);
    if (!member) return undefined;
    if (change.role) await keepAnOwner(tx, member, change.role);
    const [row] = await query<MemberRow>(tx, 'update_member', [
      member.id,
      change.role ?? null,
      change.projectIds ?? null,
      change.name ?? null,
      change.projectIds === null,
    ]);
    return { member: row!, sessionHashes: await sessionHashes(tx, member.id) };
  });
}

/** Removes a member and ends their sessions; undefined when there is none. Never the last owner. */
export async function removeMember(sql: Sql, idOrLogin: string) {
  return sql.begin(async (tx) => {
    const member = await findMember(tx, idOrLogin);
    if (!member) return undefined;
    await keepAnOwner(tx, member, null);
    const hashes = await sessionHashes(tx, member.id);
    await query(tx, 'delete_member', [member.id]);
    return { member, sessionHashes: hashes };
  });
}

async function keepAnOwner(tx: TransactionSql, member: MemberRow, nextRole: Role | null) {
  if (member.role !== 'owner' || nextRole === 'owner') return;
  const owners = await query<{ id: string }>(tx, 'lock_owners');
  if (owners.length <= 1 && owners.some((o) => o.id === member.id))
    throw new LastOwnerError(`${member.login} is the last owner: make another member owner first.`);
}

const sessionHashes = async (tx: TransactionSql, userId: string) =>
  (await query<{ token_hash: string }>(tx, 'list_member_session_hashes', [userId])).map((r) => r.token_hash);

/** Starts a session and returns the cookie value (shown once; stored as a hash). */
export async function startSession(sql: Sql, userId: string, now = new Date()) {
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_DAYS * 86_400_000);
  await query(sql, 'insert_session', [newId('ses'), hashSecret(token), userId, expiresAt]);
  return { token, expiresAt };
}

/** The live session a cookie names; a use an hour or more after the last one is recorded (and slides it). */
export async function findSession(sql: Sql, token: string, now = Date.now()): Promise<SessionLookup | undefined> {
  const [row] = await query<SessionLookup>(sql, 'find_session_by_hash', [hashSecret(token)]);
  if (!row || now - row.last_seen_at.getTime() < TOUCH_MS) return row;
  const [touched] = await query<{ expires_at: Date }>(sql, 'touch_session', [row.session_id]);
  return touched ? { ...row, expires_at: touched.expires_at } : undefined;
}

/** Ends the session a cookie names; answers its hash (for the credential cache) or undefined. */
export async function endSession(sql: Sql, token: string): Promise<string | undefined> {
  const [row] = await query<{ token_hash: string }>(sql, 'delete_session', [hashSecret(token)]);
  return row?.token_hash;
}

export async function recordSignIn(sql: Sql, userId: string, name: string | null, avatarUrl: string | null) {
  await query(sql, 'record_sign_in', [userId, name, avatarUrl]);
}

// Dashboard members (the dashboard_users allowlist) and their sign-in sessions.
import type { Sql } from 'postgres';
import { hashSecret, newId, newSessionToken } from '../secrets.ts';
import { query } from './queries.ts';

export type Role = 'owner' | 'admin' | 'analyst' | 'viewer';

export type MemberRow = {
  id: string;
  login: string;
  role: Role;
  project_ids: string[] | null;
  name: string | null;
  created_at: Date;
};

export type SessionLookup = {
  session_id: string;
  expires_at: Date;
  user_id: string;
  login: string;
  name: string | null;
  avatar_url: string | null;
  role: Role;
  project_ids: string[] | null;
};

export const SESSION_DAYS = 30;

export async function addMember(
  sql: Sql,
  input: { login: string; role: Role; projectIds: string[] | null; name?: string | null },
) {
  const [row] = await query<MemberRow>(sql, 'upsert_user', [
    newId('usr'),
    input.login,
    input.role,
    input.projectIds,
    input.name ?? null,
  ]);
  return row!;
}

/** Starts a session and returns the cookie value (shown once; stored as a hash). */
export async function startSession(sql: Sql, userId: string, now = new Date()) {
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_DAYS * 86_400_000);
  await query(sql, 'insert_session', [newId('ses'), hashSecret(token), userId, expiresAt]);
  return { token, expiresAt };
}

export async function findSession(sql: Sql, token: string): Promise<SessionLookup | undefined> {
  const [row] = await query<SessionLookup>(sql, 'find_session_by_hash', [hashSecret(token)]);
  return row;
}

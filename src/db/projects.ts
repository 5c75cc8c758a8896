// Project records: reading, creating (with keys), changing settings, rotating the secret key, deleting.
// Secret keys leave this module only once, in the create and rotate results.
import type { Sql } from 'postgres';
import { hashSecret, hintOf, newPublicKey, newSalt, newSecretKey } from '../secrets.ts';
import { query } from './queries.ts';

export type Visibility = 'public' | 'private';

export type ProjectRow = {
  id: string;
  name: string;
  visibility: Visibility;
  public_visitor_data: boolean;
  sql_enabled: boolean;
  widget_reports: boolean;
  allowed_origins: string[];
  retention_days: number;
  public_key: string;
  secret_key_hint: string;
  /** Keys the visitor hash; never leaves the server. */
  salt: string;
  /** The salt rotates daily (the salt job); the one before is kept 48 hours so live sessions go on. */
  daily_salt: boolean;
  previous_salt: string | null;
  created_at: Date;
  updated_at: Date;
};

export type ProjectSettings = {
  name?: string;
  visibility?: Visibility;
  publicVisitorData?: boolean;
  sqlEnabled?: boolean;
  widgetReports?: boolean;
  allowedOrigins?: string[];
  retentionDays?: number;
  dailySalt?: boolean;
};

export const listProjects = (sql: Sql) => query<ProjectRow>(sql, 'list_projects');

export async function findProject(sql: Sql, id: string): Promise<ProjectRow | undefined> {
  const [row] = await query<ProjectRow>(sql, 'find_project', [id]);
  return row;
}

export async function findProjectIdBySecretKey(sql: Sql, secretKey: string): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(sql, 'find_project_by_secret_hash', [hashSecret(secretKey)]);
  return row?.id;
}

/** Creates a project; undefined when the id is taken. The secret key is returned here and never again. */
export async function createProject(sql: Sql, input: { id: string; name: string; visibility: Visibility }) {
  const secretKey = newSecretKey();
  const [row] = await query<ProjectRow>(sql, 'insert_project', [
    input.id,
    input.name,
    input.visibility,
    newPublicKey(),
    hashSecret(secretKey),
    hintOf(secretKey),
    newSalt(),
  ]);
  return row ? { project: row, secretKey } : undefined;
}

export async function updateProject(sql: Sql, id: string, s: ProjectSettings): Promise<ProjectRow | undefined> {
  const [row] = await query<ProjectRow>(sql, 'update_project', [
    id,
    s.name ?? null,
    s.visibility ?? null,
    s.publicVisitorData ?? null,
    s.sqlEnabled ?? null,
    s.widgetReports ?? null,
    s.allowedOrigins ?? null,
    s.retentionDays ?? null,
    s.dailySalt ?? null,
    newSalt(),
  ]);
  return row;
}

export async function rotateSecretKey(sql: Sql, id: string) {
  const secretKey = newSecretKey();
  const [row] = await query<{ id: string; public_key: string; updated_at: Date }>(sql, 'rotate_secret_key', [
    id,
    hashSecret(secretKey),
    hintOf(secretKey),
  ]);
  return row ? { ...row, secretKey } : undefined;
}

export async function deleteProject(sql: Sql, id: string): Promise<boolean> {
  return (await query<{ id: string }>(sql, 'delete_project', [id])).length > 0;
}

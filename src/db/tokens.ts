// API tokens: created with their value shown once, stored as a hash, listed without it, revoked for good.
import type { Sql } from 'postgres';
import { hashSecret, hintOf, newApiToken, newId } from '../secrets.ts';
import { query } from './queries.ts';

export type TokenScope = 'read' | 'sql' | 'admin';

export type TokenRow = {
  id: string;
  name: string;
  scope: TokenScope;
  project_ids: string[] | null;
  token_hint: string;
  expires_at: Date | null;
  created_at: Date;
  last_used_at?: Date | null;
};

export type TokenLookup = Pick<TokenRow, 'id' | 'name' | 'scope' | 'project_ids' | 'expires_at'> & {
  revoked_at: Date | null;
};

export async function createToken(
  sql: Sql,
  input: {
    name: string;
    scope: TokenScope;
    projectIds: string[] | null;
    expiresAt: Date | null;
    createdBy: string | null;
  },
) {
  const token = newApiToken();
  const [row] = await query<TokenRow>(sql, 'insert_token', [
    newId('tok'),
    input.name,
    input.scope,
    input.projectIds,
    hashSecret(token),
    hintOf(token),
    input.expiresAt,
    input.createdBy,
  ]);
  return { row: row!, token };
}

export const listTokens = (sql: Sql) => query<TokenRow>(sql, 'list_tokens');

export async function findTokenByValue(sql: Sql, token: string): Promise<TokenLookup | undefined> {
  const [row] = await query<TokenLookup>(sql, 'find_token_by_hash', [hashSecret(token)]);
  return row;
}

export async function revokeToken(sql: Sql, id: string) {
  const [row] = await query<{ id: string; revoked_at: Date; token_hash: string }>(sql, 'revoke_token', [id]);
  return row;
}

export async function touchToken(sql: Sql, id: string): Promise<void> {
  await query(sql, 'touch_token', [id]);
}

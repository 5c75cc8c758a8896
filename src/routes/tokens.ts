// API tokens: create (value shown once), list (never the value), revoke. Organisation-wide routes.
import * as v from 'valibot';
import { HttpError, notFound } from '../errors.ts';
import { createToken, listTokens, revokeToken, type TokenRow } from '../db/tokens.ts';
import { route } from './route.ts';
import { dateTime, iso, projectIdSchema } from './schemas.ts';
import { tokenCreatedResponse, tokenRevokedResponse, tokensResponse } from './responses.ts';

const CreateToken = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  scope: v.picklist(['read', 'sql', 'admin'], 'must be read, sql or admin'),
  projectIds: v.optional(
    v.nullable(
      v.pipe(
        v.array(projectIdSchema),
        v.minLength(1, 'list at least one project, or leave it out for all'),
        v.maxLength(1000),
      ),
    ),
  ),
  expiresAt: v.optional(v.nullable(dateTime)),
});

const shape = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  scope: t.scope,
  projectIds: t.project_ids,
  hint: t.token_hint,
  expiresAt: iso(t.expires_at),
  createdAt: iso(t.created_at),
  lastUsedAt: iso(t.last_used_at),
});

export const tokenRoutes = [
  route({
    method: 'POST',
    path: '/v2/tokens',
    response: tokenCreatedResponse,
    access: 'organization',
    tag: 'Tokens',
    status: 201,
    summary: 'Create an API token. Its value (at_live_…) is in this answer only; it is stored hashed.',
    body: CreateToken,
    async handler({ body, services, caller }) {
      if (body.expiresAt && body.expiresAt.getTime() <= Date.now()) {
        throw new HttpError('VALIDATION_FAILED', 'expiresAt must be in the future.', [
          { field: 'body.expiresAt', message: 'must be in the future' },
        ]);
      }
      const unknown = (body.projectIds ?? []).filter((id) => !services.projects.get(id));
      if (unknown.length > 0) {
        throw new HttpError('VALIDATION_FAILED', `Unknown project: ${unknown.join(', ')}.`, [
          { field: 'body.projectIds', message: `unknown project ${unknown.join(', ')}` },
        ]);
      }
      const p = caller.principal;
      const createdBy = p.kind === 'member' ? p.userId : p.kind === 'token' ? p.tokenId : null;
      const { row, token } = await createToken(services.sql, {
        name: body.name,
        scope: body.scope,
        projectIds: body.projectIds ?? null,
        expiresAt: body.expiresAt ?? null,
        createdBy,
      });
      return { data: { ...shape(row), token } };
    },
  }),
  route({
    method: 'GET',
    path: '/v2/tokens',
    response: tokensResponse,
    access: 'organization',
    tag: 'Tokens',
    summary: 'List the tokens that are not revoked (never their values).',
    async handler({ services }) {
      return { data: (await listTokens(services.sql)).map(shape) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/v2/tokens/{token}',
    response: tokenRevokedResponse,
    access: 'organization',
    tag: 'Tokens',
    summary: 'Revoke a token. It answers 401 from then on.',
    async handler({ params, services }) {
      const row = await revokeToken(services.sql, params.token!);
      if (!row) throw notFound(`Token ${params.token} not found.`);
      services.credentials.forget(row.token_hash);
      return { data: { id: row.id, revokedAt: iso(row.revoked_at) } };
    },
  }),
];

// At start: while the install has no owner, say how to make the first one, and how people get in
// (browser sign-in through the identity provider, or API tokens when none is configured).
import { query } from './db/queries.ts';
import type { Services } from './services.ts';

export async function firstOwnerHint(services: Services): Promise<string | null> {
  const owners = await query<{ id: string }>(services.sql, 'list_owners');
  if (owners.length > 0) return null;
  const signIn = services.signIn
    ? '  Members sign in at /v2/auth/signin with the login your identity provider reports\n' +
      '  (preferred_username, else email, else sub).'
    : '  No identity provider is configured (OIDC_ISSUER), so nobody signs in with a browser:\n' +
      '  API tokens are the way in (npm run -s cli -- token create --name me --scope admin).';
  return [
    '',
    '  No owner yet. Make the first one:',
    '    npm run -s cli -- user add --login you@example.com --role owner',
    signIn,
    '',
  ].join('\n');
}

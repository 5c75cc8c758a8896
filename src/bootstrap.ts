// First start of the embedded default: create a demo project and an admin token and print them once,
// so a newcomer can query straight away. Later starts print nothing (server_state remembers).
import { query } from './db/queries.ts';
import { createProject } from './db/projects.ts';
import { createToken } from './db/tokens.ts';
import type { Services } from './services.ts';

export async function bootstrapEmbedded(services: Services, url: string): Promise<void> {
  const { sql } = services;
  const claimed = await query<{ key: string }>(sql, 'put_state', ['bootstrap', { at: new Date().toISOString() }]);
  if (claimed.length === 0) return;
  const demo = services.projects.get('demo')
    ? undefined
    : await createProject(sql, { id: 'demo', name: 'Demo', visibility: 'private' });
  const { token } = await createToken(sql, {
    name: 'bootstrap admin',
    scope: 'admin',
    projectIds: null,
    expiresAt: null,
    createdBy: null,
  });
  await services.projects.refresh();
  const lines = [
    '',
    '  Loupe is ready (embedded database). These secrets are shown once:',
    `    admin token     ${token}`,
    ...(demo
      ? [
          `    demo project    ${demo.project.id}`,
          `    public key      ${demo.project.public_key}`,
          `    secret key      ${demo.secretKey}`,
        ]
      : []),
    '',
    `  Try:  curl -H "Authorization: Bearer ${token}" ${url}/v2/projects`,
    `  Docs: ${url}/v2/docs`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

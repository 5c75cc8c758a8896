// The command line as an operator uses it: JSON on stdout, --help, errors on stderr with a non-zero exit.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { createTestDatabase } from './support/database.ts';

const run = promisify(execFile);
const db = await createTestDatabase();
t.teardown(() => db.drop());
const env = { ...process.env, DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl ?? '' };
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env,
    cwd: new URL('..', import.meta.url).pathname,
  });

t.test('--help', async (t) => {
  const { stdout } = await cli('--help');
  t.match(stdout, /project create --name N/);
  t.match(stdout, /token create --name N --scope read\|sql\|admin/);
  t.match(stdout, /user add --login L --role/);
});

t.test('migrate, project create, token create, user add print JSON', async (t) => {
  t.match(JSON.parse((await cli('migrate')).stdout), { applied: Array });
  const project = JSON.parse((await cli('project', 'create', '--name', 'My Shop', '--public')).stdout);
  t.match(project, { id: 'my-shop', visibility: 'public', publicKey: /^pk_/, secretKey: /^sk_/ });
  const token = JSON.parse(
    (await cli('token', 'create', '--name', 'ci', '--scope', 'read', '--projects', 'my-shop')).stdout,
  );
  t.match(token, { id: /^tok_/, scope: 'read', projectIds: ['my-shop'], token: /^at_live_/ });
  const user = JSON.parse(
    (await cli('user', 'add', '--login', 'ana@example.com', '--role', 'analyst', '--projects', 'my-shop')).stdout,
  );
  t.match(user, { login: 'ana@example.com', role: 'analyst', projectIds: ['my-shop'] });
});

t.test('bad input: a clear message on stderr and a non-zero exit', async (t) => {
  const bad = await cli('token', 'create', '--name', 'x', '--scope', 'root').catch(
    (e: { code: number; stderr: string }) => e,
  );
  t.equal((bad as { code: number }).code, 1);
  t.match((bad as { stderr: string }).stderr, /error:/);
  const dup = await cli('project', 'create', '--name', 'My Shop').catch((e: { code: number; stderr: string }) => e);
  t.match((dup as { stderr: string }).stderr, /already exists/);
  const unknown = await cli('frobnicate').catch((e: { code: number; stderr: string }) => e);
  t.equal((unknown as { code: number }).code, 2);
});

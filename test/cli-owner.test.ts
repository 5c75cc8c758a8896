// The owner's CLI commands: user list, user remove (never the last owner), project delete (the route's
// cleanup), and the start-up hint that says how to make the first owner. The commands run in this process
// against the test database; two run as the real CLI (JSON on stdout, an error's exit code and message).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { ownerCommands } from '../src/cli-owner.ts';
import { openDatabase } from '../src/db/client.ts';
import { addMember } from '../src/db/members.ts';
import { migrate } from '../src/db/migrate.ts';
import { createProject } from '../src/db/projects.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase } from './support/database.ts';
import { startServerProcess } from './support/process.ts';

// A spawned CLI or server opens the embedded database afresh: on a loaded machine that takes seconds.
t.setTimeout(600_000);
const run = promisify(execFile);
const testDb = await createTestDatabase();
t.teardown(() => testDb.drop());
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: testDb.dataDir, DATABASE_URL: testDb.databaseUrl ?? '' },
    cwd: new URL('..', import.meta.url).pathname,
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

t.test('a fresh install says how to make the first owner, and that tokens are the way in', async (t) => {
  const server = await startServerProcess({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
  await new Promise((r) => setTimeout(r, 300));
  t.match(server.stdout(), /No owner yet/);
  t.match(server.stdout(), /npm run -s cli -- user add --login you@example\.com --role owner/);
  t.match(server.stdout(), /API tokens are the way in/, 'no OIDC_ISSUER');
  await server.kill();
});

t.test('user list, user remove, project delete', async (t) => {
  const db = await openDatabase({
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    log: createLogger('silent'),
    max: 2,
  });
  const command = (line: string) => {
    const words = line.split(' ');
    return ownerCommands[`${words[0]} ${words[1]}`]!(db, words.slice(2));
  };
  try {
    await migrate(db.sql);
    await addMember(db.sql, { login: 'root@example.com', role: 'owner', projectIds: null });
    await addMember(db.sql, { login: 'ana@example.com', role: 'analyst', projectIds: ['a', 'b'] });
    t.match(await command('user list'), {
      data: [
        { login: 'ana@example.com', role: 'analyst', projectIds: ['a', 'b'], lastSeenAt: null },
        { login: 'root@example.com', role: 'owner', projectIds: null },
      ],
    });
    t.match(await command('user remove --login ana@example.com'), { login: 'ana@example.com', removed: true });
    t.equal(((await command('user list')) as { data: unknown[] }).data.length, 1);
    await t.rejects(command('user remove --login ana@example.com'), /No member ana@example\.com/);
    await t.rejects(command('user remove'), /--login is required/);
    await t.rejects(
      addMember(db.sql, { login: 'root@example.com', role: 'admin', projectIds: null }),
      /last owner/,
      'user add cannot demote the last owner either',
    );
    await createProject(db.sql, { id: 'kept', name: 'Kept', visibility: 'private' });
    await createProject(db.sql, { id: 'doomed', name: 'Doomed', visibility: 'private' });
    t.same(await command('project delete --id kept'), { id: 'kept', deleted: true });
    await t.rejects(command('project delete --id kept'), /No project kept/);
    t.same(
      (await db.sql<{ id: string }[]>`select id from projects where id in ('kept', 'doomed')`).map((r) => r.id),
      ['doomed'],
    );
  } finally {
    await db.close();
  }

  const deleted = await cli('project', 'delete', '--id', 'doomed');
  t.same(JSON.parse(deleted.stdout), { id: 'doomed', deleted: true }, 'the real CLI prints JSON');
  const last = await cli('user', 'remove', '--login', 'root@example.com');
  t.equal(last.code, 1);
  t.match(last.stderr, /error: root@example\.com is the last owner/);
});

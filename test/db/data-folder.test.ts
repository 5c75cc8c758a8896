// One owner per data folder: the lock is taken once, answered with its live owner to anyone else, freed on
// release and by the death of its owner (a crash never leaves it stuck); the folder and files are owner-only,
// and a second process reaches the owner's database through the socket in the folder, not a second copy.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatabase } from '../../src/db/client.ts';
import { claimDataFolder, LOCK_FILE, SOCKET_FILE } from '../../src/db/data-folder.ts';
import { createLogger } from '../../src/log.ts';
import { Refusal } from '../../src/refusal.ts';

// Several embedded databases opened one after another: slow on a busy machine.
t.setTimeout(300_000);
const log = createLogger('silent');
const folder = async (t: { teardown: (fn: () => Promise<void>) => void }) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'loupe-folder-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

t.test('the lock: taken once, held by a live owner, free after release', async (t) => {
  const dir = await folder(t);
  const first = await claimDataFolder(dir, 'server');
  t.equal(first.held, false, 'the first claim takes it');
  const second = await claimDataFolder(dir, 'cli');
  t.match(second, { held: true, owner: { pid: process.pid, role: 'server' } }, 'the second learns who holds it');
  if (!first.held) await first.release();
  const third = await claimDataFolder(dir, 'cli');
  t.equal(third.held, false, 'free again after release');
  if (!third.held) await third.release();
});

t.test('a dead owner leaves no stuck lock', async (t) => {
  const dir = await folder(t);
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  await writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: child.pid, startedAt: '1', role: 'server' }));
  const claim = await claimDataFolder(dir, 'server');
  t.equal(claim.held, false, 'taken over from a process that no longer runs');
  t.match(JSON.parse(await readFile(path.join(dir, LOCK_FILE), 'utf8')), { pid: process.pid });
  if (!claim.held) await claim.release();
  await writeFile(path.join(dir, LOCK_FILE), '{"pi'); // a crash in the middle of writing it
  const again = await claimDataFolder(dir, 'server');
  t.equal(again.held, false, 'a half-written lock is no owner');
  if (!again.held) await again.release();
});

t.test('the embedded database: owner-only folder and files, a socket inside, one copy for all', async (t) => {
  const dir = await folder(t);
  const owner = await openDatabase({ dataDir: dir, log, exclusive: true });
  t.teardown(() => owner.close());
  t.equal((await stat(dir)).mode & 0o777, 0o700, 'the folder is 0700');
  t.ok((await stat(path.join(dir, SOCKET_FILE))).isSocket(), 'the database listens on a socket in the folder');
  const open = execFileSync('find', [dir, '-perm', '/o+w,g+w', '-not', '-type', 's']).toString().trim();
  t.equal(open, '', 'nothing in it is group- or world-writable');

  await t.rejects(openDatabase({ dataDir: dir, log, exclusive: true }), Refusal, 'a second server is refused');
  const other = await openDatabase({ dataDir: dir, log, max: 2 });
  await other.sql`create table shared_check (n int)`;
  await other.sql`insert into shared_check values (1), (2)`;
  await other.close();
  const [row] = await owner.sql<{ n: number }[]>`select count(*)::int as n from shared_check`;
  t.equal(row!.n, 2, "another process's writes are in the owner's database at once");
});

t.test("connections sharing the session never lose each other's statements", async (t) => {
  const dir = await folder(t);
  const owner = await openDatabase({ dataDir: dir, log, exclusive: true });
  t.teardown(() => owner.close());
  const other = await openDatabase({ dataDir: dir, log, max: 2 });
  t.teardown(() => other.close());
  // Extended-protocol statements (Parse, Bind, Execute, Sync) from three connections at once.
  // Unnamed statements of different shapes: one connection's Bind landing on another's Parse would fail.
  const ask = (sql: typeof owner.sql, i: number) =>
    sql
      .unsafe<{ v: string }[]>(
        `select $1::text || '${'!'.repeat((i % 5) + 1)}' as v${', $2::int as n'.repeat(i % 2)}`,
        i % 2 ? [`value ${i}`, i] : [`value ${i}`],
        { prepare: false },
      )
      .then((r) => r[0]!.v);
  const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => ask(i % 3 === 0 ? owner.sql : other.sql, i)));
  t.same(
    answers,
    answers.map((_, i) => `value ${i}${'!'.repeat((i % 5) + 1)}`),
    'every answer is its own question',
  );
});

// The main pool's own sockets (src/db/client.ts hands the client a connect function) still name the server
// in TLS (SNI): a managed PostgreSQL that routes by server name refuses one without. And both databases plan
// a prepared read for its parameters every time (docs/decisions.md, "Reads are planned for their parameters").
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';

/** A peer that accepts the TLS request ('S') and keeps the first bytes of the handshake that follows. */
async function tlsPeer(): Promise<{ port: number; hello: Promise<Buffer>; close: () => void }> {
  let got: (b: Buffer) => void = () => {};
  const hello = new Promise<Buffer>((r) => (got = r));
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    let asked = false;
    socket.on('data', (d: Buffer) => {
      if (!asked) {
        asked = true;
        socket.write('S');
        return;
      }
      got(d);
      socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, hello, close: () => server.close() };
}

t.test('the pool sends the server name in its TLS hello', async (t) => {
  const peer = await tlsPeer();
  t.teardown(peer.close);
  const db = await openDatabase({
    databaseUrl: `postgres://u:p@localhost:${peer.port}/d?sslmode=require`,
    dataDir: '',
    log: createLogger('silent'),
    max: 1,
  });
  t.teardown(() => db.sql.end({ timeout: 0 }));
  db.sql`select 1`.catch(() => {}); // fails once the peer hangs up; only its hello matters
  const hello = await peer.hello;
  t.equal(hello[0], 0x16, 'a TLS handshake record');
  t.ok(hello.includes(Buffer.from('localhost')), 'its hello names the server (SNI)');
});

t.test('a prepared read is planned for its parameters every time, embedded or on PostgreSQL', async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'loupe-plans-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const db = await openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  t.teardown(() => db.close());
  const [mode] = await db.sql<{ plan_cache_mode: string }[]>`show plan_cache_mode`;
  t.equal(mode!.plan_cache_mode, 'force_custom_plan', db.embedded ? 'embedded' : 'PostgreSQL');
  // Past five runs, PostgreSQL's own choice would be a generic plan.
  const hashes = Array.from({ length: 100 }, (_, i) => String(i * 7919));
  for (let i = 0; i < 8; i++)
    await db.sql`select count(*) from unnest(${hashes}::bigint[]) as x(h) where h = any(${hashes.slice(0, 50)}::bigint[])`;
  const [plans] = await db.sql<{ generic: number; custom: number }[]>`
    select generic_plans as generic, custom_plans as custom from pg_prepared_statements
    where statement like '%from unnest($1::bigint[]) as x(h)%' and statement not like '%pg_prepared_statements%'`;
  t.same(plans, { generic: 0, custom: 8 }, 'eight custom plans, no generic one');
});

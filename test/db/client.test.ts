// The main pool's own sockets (src/db/client.ts hands the client a connect function) still name the server
// in TLS (SNI): a managed PostgreSQL that routes by server name refuses one without.
import net from 'node:net';
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

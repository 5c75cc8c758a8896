// What the flush writer does when the other end misbehaves, against a scripted peer that speaks just
// enough of the protocol (a real server cannot be made to): it must refuse a server that skips SCRAM's
// proof, fail (not spin or crash) on a message no server sends, honour 'allow' as postgres.js does, and
// not let a silent server hold up close(), and send the host's name for TLS (SNI).
import t from 'tap';
import { selfSignedCertificate } from '../../support/self-signed.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { WireConnection, type WireOptions } from '../../../src/db/wire/connection.ts';

/** A backend message: type byte, Int32 length, body. */
const msg = (type: string, body: Buffer = Buffer.alloc(0)) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const auth = (kind: number, text = '') => {
  const b = Buffer.alloc(4 + Buffer.byteLength(text));
  b.writeInt32BE(kind, 0);
  b.write(text, 4);
  return msg('R', b);
};
const ready = msg('Z', Buffer.from('I'));

/** A peer that runs `script` for each connection: it gets the socket and a way to wait for the next bytes. */
async function scripted(
  script: (socket: net.Socket, next: () => Promise<Buffer>) => Promise<void>,
): Promise<{ port: number; close: () => void }> {
  const server = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    let wake: (() => void) | null = null;
    socket.on('data', (d: Buffer) => (chunks.push(d), wake?.()));
    socket.on('error', () => {});
    const next = async () => {
      while (chunks.length === 0) await new Promise<void>((r) => (wake = r));
      return chunks.shift()!;
    };
    void script(socket, next).catch(() => socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

const options = (port: number, over: Partial<WireOptions> = {}): WireOptions => ({
  host: '127.0.0.1',
  port,
  database: 'd',
  user: 'u',
  password: 'secret',
  ssl: false,
  params: {},
  connectTimeoutMs: 3_000,
  ...over,
});

t.test('a server that ends SCRAM without proving it knows the password is refused', async (t) => {
  const peer = await scripted(async (socket, next) => {
    await next(); // startup
    socket.write(auth(10, 'SCRAM-SHA-256\0\0'));
    const initial = (await next()).toString('utf8');
    const nonce = /r=([^,\0]+)/.exec(initial)![1]!;
    socket.write(auth(11, `r=${nonce}srv,s=${Buffer.from('salt').toString('base64')},i=4096`));
    await next(); // the client's proof
    socket.write(Buffer.concat([auth(0), ready])); // "fine", with no server signature
  });
  t.teardown(peer.close);
  await t.rejects(WireConnection.open(options(peer.port), {}), { code: '28000', message: /without proving/ });
});

t.test('a message of impossible length fails what is in flight and closes the connection', async (t) => {
  const peer = await scripted(async (socket, next) => {
    await next();
    socket.write(Buffer.concat([auth(0), ready]));
    await next(); // Parse + Sync of the prepared statements
    socket.write(Buffer.concat([msg('1'), ready]));
    await next(); // a pipeline
    const bad = Buffer.alloc(5);
    bad.write('D', 0, 'latin1');
    bad.writeInt32BE(-1, 1);
    socket.write(bad);
  });
  t.teardown(peer.close);
  const c = await WireConnection.open(options(peer.port), { s: 'select 1' });
  await t.rejects(c.run([{ statement: 's' }]), { code: 'PROTOCOL', message: /impossible length/ });
  t.ok(c.closed, 'closed, not left out of step with the server');
});

t.test('ssl allow, like postgres.js, does not go on in plain text when the server has no TLS', async (t) => {
  const peer = await scripted(async (socket, next) => {
    await next(); // SSLRequest
    socket.write('N');
  });
  t.teardown(peer.close);
  await t.rejects(WireConnection.open(options(peer.port, { ssl: 'allow' }), {}), { code: '08004' });
});

t.test('close() does not wait on a server gone silent', async (t) => {
  const peer = await scripted(async (socket, next) => {
    await next();
    socket.write(Buffer.concat([auth(0), ready]));
    await next();
    socket.write(Buffer.concat([msg('1'), ready]));
    await next(); // a pipeline, never answered
  });
  t.teardown(peer.close);
  const c = await WireConnection.open(options(peer.port), { s: 'select 1' });
  const pending = c.run([{ statement: 's' }]);
  pending.catch(() => {});
  const started = performance.now();
  await c.close(200);
  t.ok(performance.now() - started < 2_000, 'closed after its grace period');
  await t.rejects(pending, { code: 'CONNECTION_CLOSED' }, 'what was in flight fails');
});

t.test('TLS: the host name goes as the server name (SNI), an address does not', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-sni-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [key, cert] = [path.join(dir, 'k.pem'), path.join(dir, 'c.pem')];
  selfSignedCertificate('db.test', key, cert);
  const names: (string | false)[] = [];
  const peer = await scripted(async (socket, next) => {
    await next(); // SSLRequest
    socket.write('S');
    const secured = new tls.TLSSocket(socket, {
      isServer: true,
      key: readFileSync(key),
      cert: readFileSync(cert),
      SNICallback: (name, done) => (names.push(name), done(null)),
    });
    secured.on('error', () => {});
    await new Promise<void>((resolve) => secured.once('secure', resolve));
    names.push(secured.servername ?? false);
    secured.destroy(); // enough: the name was seen
  });
  t.teardown(peer.close);
  await t.rejects(WireConnection.open(options(peer.port, { host: 'localhost', ssl: 'require' }), {}));
  t.same(names, ['localhost', 'localhost'], 'a host name: sent, and the server read it');
  names.length = 0;
  await t.rejects(WireConnection.open(options(peer.port, { ssl: 'require' }), {}));
  t.same(names, [false], 'an address: no server name (TLS allows none)');
});

// The protocol's messages as bytes: what the flush writer sends (checked against the layouts of
// PostgreSQL's protocol documentation, byte by byte) and how it splits what the server answers.
import t from 'tap';
import {
  Incoming,
  Outgoing,
  dataRow,
  errorFields,
  startupMessage,
  type BackendMessage,
} from '../../../src/db/wire/messages.ts';

/** A message as the documentation lays it out: type byte, Int32 length (counting itself), body. */
const message = (type: string, ...parts: (string | number[] | Buffer)[]) => {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};

t.test('Parse, Bind, Execute, CopyData, CopyDone, Sync', async (t) => {
  const payload = Buffer.from('a\tb\n');
  const chunks = new Outgoing()
    .parse('s1', 'select $1')
    .bind('s1', ['Ünï', null, ''])
    .execute()
    .copyData(payload)
    .copyDone()
    .sync()
    .take();
  const expected = Buffer.concat([
    message('P', 's1\0', 'select $1\0', int16(0)),
    message('B', '\0', 's1\0', int16(0), int16(3), int32(5), 'Ünï', int32(-1), int32(0), int16(0)),
    message('E', '\0', int32(0)),
    message('d', payload),
    message('c'),
    message('S'),
  ]);
  t.same(
    Buffer.concat(chunks),
    expected,
    "the documented layouts; a parameter's length counts its UTF-8 bytes; null is -1",
  );
  t.ok(
    chunks.some((c) => c === payload),
    'a Buffer of COPY data is sent as it is, not copied',
  );
  t.same(new Outgoing().take(), [], 'an empty builder takes nothing');
});

t.test('a large parameter, and the builder empty again after take()', async (t) => {
  const big = 'x'.repeat(100_000);
  const out = new Outgoing();
  const first = Buffer.concat(out.bind('s', [big]).take());
  t.equal(first.readInt32BE(1), first.length - 1, 'the length is right after the buffer grew');
  t.equal(first.readInt32BE(12), 100_000, "type, length, portal, statement, two counts, then the value's length");
  t.same(Buffer.concat(out.sync().take()), message('S'), 'what was taken is not sent again');
});

t.test('password messages: clear text is null-terminated, SASL responses are not', async (t) => {
  t.same(Buffer.concat(new Outgoing().password('md5abc').take()), message('p', 'md5abc\0'));
  t.same(
    Buffer.concat(new Outgoing().saslInitial('SCRAM-SHA-256', 'n,,n=*,r=x').take()),
    message('p', 'SCRAM-SHA-256\0', int32(10), 'n,,n=*,r=x'),
  );
  t.same(Buffer.concat(new Outgoing().saslResponse('c=biws,r=x,p=y').take()), message('p', 'c=biws,r=x,p=y'));
});

t.test('the startup packet', async (t) => {
  const packet = startupMessage({ user: 'u', database: 'd' });
  t.same(
    packet,
    Buffer.concat([
      int32(8 + 'user\0u\0database\0d\0\0'.length),
      int32(196_608),
      Buffer.from('user\0u\0database\0d\0\0'),
    ]),
  );
});

t.test('what the server sends, split anywhere, comes out whole and in order', async (t) => {
  const stream = Buffer.concat([
    message('1'),
    message('D', int16(3), int32(3), 'abc', int32(-1), int32(4), 'Ünï'.slice(0, 2)),
    message('C', 'INSERT 0 1\0'),
    message('Z', 'I'),
  ]);
  const whole: string[] = [];
  new Incoming().push(stream, (m) => whole.push(String.fromCharCode(m.type)));
  t.same(whole, ['1', 'D', 'C', 'Z']);
  for (let cut = 1; cut < stream.length; cut++) {
    const got: BackendMessage[] = [];
    const incoming = new Incoming();
    incoming.push(stream.subarray(0, cut), (m) => got.push(m));
    incoming.push(stream.subarray(cut), (m) => got.push(m));
    if (got.map((m) => String.fromCharCode(m.type)).join('') !== '1DCZ') t.fail(`split at ${cut}`);
  }
  const byteByByte: BackendMessage[] = [];
  const incoming = new Incoming();
  for (const b of stream) incoming.push(Buffer.from([b]), (m) => byteByByte.push(m));
  t.same(dataRow(byteByByte[1]!.body), ['abc', null, 'Ün'], 'a row read byte by byte: text, null, UTF-8');
});

t.test('error fields', async (t) => {
  const body = Buffer.from('SERROR\0C23505\0Mduplicate key value violates unique constraint "k"\0nk\0\0');
  t.same(errorFields(body), {
    S: 'ERROR',
    C: '23505',
    M: 'duplicate key value violates unique constraint "k"',
    n: 'k',
  });
});

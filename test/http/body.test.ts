// parseBody's unicodeEscapes: false must mean that no string of the value holds U+0000 or an unpaired
// surrogate (ingest then skips its walk over the event's strings for text PostgreSQL cannot store).
import t from 'tap';
import { parseBody } from '../../src/http/body.ts';
import { unstorableText } from '../../src/ingest/event-schema.ts';

const parse = (bytes: Buffer) => {
  const parsed = parseBody(bytes, 'application/json');
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed;
};

t.test('a body without a \\u escape holds only storable text; one with it is walked', async (t) => {
  t.same(parse(Buffer.from('{"name":"pageview","page":{"title":"Prix · 10 €"}}')).unicodeEscapes, false);
  t.same(parse(Buffer.from(JSON.stringify({ title: 'a\u0000b' }))).unicodeEscapes, true, 'NUL is sent escaped');
  t.same(
    parse(Buffer.from(JSON.stringify({ title: 'a\ud800b' }))).unicodeEscapes,
    true,
    'an unpaired surrogate is sent escaped',
  );
  // An escaped backslash before "u0000" is a plain backslash: walked for nothing, and storable.
  const literal = parse(Buffer.from(JSON.stringify({ title: 'C:\\u0000' })));
  t.same([literal.unicodeEscapes, unstorableText(literal.value, '')], [true, null]);
  t.same(parseBody(Buffer.alloc(0), 'application/json'), { ok: true, value: undefined, unicodeEscapes: false });
});

t.test('raw bytes cannot smuggle NUL or a surrogate past the flag', async (t) => {
  // A surrogate encoded in UTF-8 (CESU-8), overlong NULs, stray continuation and lead bytes: the decoder
  // makes U+FFFD of each; a raw NUL or other control byte in a string is refused by JSON.parse.
  const pieces = [
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xc0, 0x80],
    [0xe0, 0x80, 0x80],
    [0x80],
    [0xf0, 0x9f],
    [0x00],
    [0x01],
    [0x41],
  ];
  let rng = 7;
  const rand = (n: number) => ((rng = (rng * 1103515245 + 12345) & 0x7fffffff), rng % n);
  let parsedCount = 0;
  for (let i = 0; i < 2000; i++) {
    const inner = Array.from({ length: 1 + rand(6) }, () => pieces[rand(pieces.length)]!).flat();
    const bytes = Buffer.concat([Buffer.from('{"k":"'), Buffer.from(inner), Buffer.from('"}')]);
    const parsed = parseBody(bytes, 'application/json');
    if (!parsed.ok) continue;
    parsedCount++;
    if (parsed.unicodeEscapes) continue;
    if (unstorableText(parsed.value, '') !== null)
      t.fail(`bytes ${bytes.toString('hex')} parsed to unstorable text without an escape`);
  }
  t.ok(parsedCount > 500, `${parsedCount} of 2000 random bodies parsed, none unstorable`);
  t.same(
    (parse(Buffer.from([...Buffer.from('{"k":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')])).value as { k: string }).k,
    '\ufffd'.repeat(3),
    'an encoded surrogate decodes as replacement characters',
  );
});

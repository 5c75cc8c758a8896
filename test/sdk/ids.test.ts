import t from 'tap';
import { randomId, timeOrderedId } from '../../src/sdk/ids.ts';

const SHAPE = /^[0-9a-v]{7}[0-9A-Za-z_-]{14}$/;

t.test('an event id is 21 characters: 7 of the clock, 14 random', async (t) => {
  const id = timeOrderedId(Date.UTC(2026, 10, 25, 9, 0, 0));
  t.match(id, SHAPE);
  t.equal(id.length, 21, 'as long as the random ids were');
  t.equal(
    parseInt(id.slice(0, 7), 32),
    Date.UTC(2026, 10, 25, 9, 0, 0) / 1000,
    'the prefix is the Unix second in base 32',
  );
  t.equal(timeOrderedId(0).slice(0, 7), '0000000', 'the epoch pads with zeros');
  t.equal(timeOrderedId((32 ** 7 - 1) * 1000).slice(0, 7), 'vvvvvvv', 'the last second it can tell (the year 3058)');
});

t.test('ids sort by the second they were made, in code-point order and in ICU order alike', async (t) => {
  const start = Date.UTC(2026, 10, 25);
  // Seconds chosen to cross digit boundaries (9 → a, v → 10) where a wrong alphabet would misorder.
  const seconds = [0, 1, 9, 10, 31, 32, 33, 1023, 1024, 86_400, 86_401, 31_536_000];
  const ids = seconds.map((s) => timeOrderedId(start + s * 1000 + 999));
  const byCodePoint = [...ids].sort();
  t.same(byCodePoint, ids, 'code-point order (PostgreSQL "C") is creation order');
  const collator = new Intl.Collator('en', { sensitivity: 'variant' });
  t.same(
    ids.map((id) => id.slice(0, 7)).sort(collator.compare),
    ids.map((id) => id.slice(0, 7)),
    'so is a locale collation of the clock',
  );
  t.equal(timeOrderedId(start + 999).slice(0, 7), timeOrderedId(start).slice(0, 7), 'one second, one prefix');
});

t.test('ids of one second differ (84 random bits)', async (t) => {
  const now = Date.now();
  const ids = new Set(Array.from({ length: 20_000 }, () => timeOrderedId(now)));
  t.equal(ids.size, 20_000);
  const tails = new Set([...ids].map((id) => id.slice(7, 8)));
  t.ok(tails.size > 60, `the random part uses the whole alphabet (${tails.size} of 64 first characters seen)`);
});

t.test('randomId keeps its shape for visitor and session ids', async (t) => {
  t.match(randomId(), /^[0-9A-Za-z_-]{21}$/);
  t.match(randomId(8), /^[0-9A-Za-z_-]{8}$/);
});

import t from 'tap';
import { createMemo } from '../src/memo.ts';

t.test('a memo computes a key once; a key used again stays, one not used again goes', async (t) => {
  const memo = createMemo<string>(4); // two generations of two
  const computed: string[] = [];
  const get = (key: string) => memo(key, () => (computed.push(key), `v:${key}`));
  t.equal(get('a'), 'v:a');
  t.equal(get('a'), 'v:a');
  get('b'); // the young generation is full: a and b are now the old one
  get('a'); // used again: back in the young one
  get('c'); // full again: a and c are the old generation, and b is gone
  get('a');
  get('b');
  t.same(computed, ['a', 'b', 'c', 'b']);
  // A stack-sized key parsed anew (a fresh string) finds the entry of an equal one.
  const stack = `TypeError: x\n${'    at f (https://a.example/app.js:1:2)\n'.repeat(40)}`;
  t.equal(get(stack), `v:${stack}`);
  t.equal(get(JSON.parse(JSON.stringify(stack)) as string), `v:${stack}`);
  t.equal(computed.length, 5);
});

t.test('a key not used again goes after between half the bound and the bound of new keys', async (t) => {
  const memo = createMemo<number>(10);
  let computed = 0;
  const get = (key: string) => memo(key, (k) => (computed++, k.length));
  get('first');
  for (let i = 0; i < 4; i++) get(`k${i}`);
  get('first');
  t.equal(computed, 5, 'kept past half the bound');
  for (let i = 0; i < 10; i++) get(`m${i}`);
  get('first');
  t.equal(computed, 16, 'gone after the bound');
});

t.test('null and false are answers, remembered like any other', async (t) => {
  const memo = createMemo<boolean | null>(4);
  let computed = 0;
  t.equal(
    memo('x', () => (computed++, null)),
    null,
  );
  t.equal(
    memo('x', () => (computed++, null)),
    null,
  );
  t.equal(
    memo('y', () => (computed++, false)),
    false,
  );
  t.equal(
    memo('y', () => (computed++, false)),
    false,
  );
  t.equal(computed, 2);
});

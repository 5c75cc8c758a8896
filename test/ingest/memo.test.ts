import t from 'tap';
import { createMemo } from '../../src/ingest/memo.ts';

t.test('a memo computes a key once, and evicts the oldest key past its bound', async (t) => {
  const memo = createMemo<string>(2);
  const computed: string[] = [];
  const get = (key: string) => memo(key, () => (computed.push(key), `v:${key}`));
  t.equal(get('a'), 'v:a');
  t.equal(get('a'), 'v:a');
  get('b');
  get('c'); // a goes
  get('b');
  get('a');
  t.same(computed, ['a', 'b', 'c', 'a']);
  // A stack-sized key parsed anew (a fresh string) finds the entry of an equal one.
  const stack = `TypeError: x\n${'    at f (https://a.example/app.js:1:2)\n'.repeat(40)}`;
  t.equal(get(stack), `v:${stack}`);
  t.equal(get(JSON.parse(JSON.stringify(stack)) as string), `v:${stack}`);
  t.equal(computed.length, 5);
});

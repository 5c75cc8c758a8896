// The order of a live map's entries: the oldest current entry, skipping places left by entries that moved
// to the end or left the map, and a bounded array however many moves there were.
import t from 'tap';
import { PlacementOrder } from '../../actors/placement-order.ts';

type Entry = { key: string; placedAt: number };

t.test('the oldest current entry: moved and removed entries are skipped where they were', async (t) => {
  const map = new Map<string, Entry>();
  const order = new PlacementOrder(map, (e: Entry) => e.key);
  t.equal(order.oldest(), null, 'empty');
  for (const [key, placedAt] of [
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ] as const) {
    map.set(key, { key, placedAt });
    order.place(map.get(key)!);
  }
  const a = map.get('a')!;
  a.placedAt = 4; // a moves to the end
  order.place(a);
  t.equal(order.oldest()?.key, 'b', "a's first place is skipped");
  map.delete('b');
  t.equal(order.oldest()?.key, 'c', 'b left the map');
  map.set('c', { key: 'c', placedAt: 5 }); // a new entry under the same key: placed anew, not where c was
  order.place(map.get('c')!);
  t.equal(order.oldest()?.key, 'a');
  map.delete('a');
  t.equal(order.oldest()?.key, 'c');
  map.delete('c');
  t.equal(order.oldest(), null);
});

/** `n` entries placed in key order, then every entry moved `turns` times; `walk`: the front is walked after
 *  each turn, as a caller that prunes does. Answers the most places held at once. */
function moving(n: number, turns: number, walk: boolean) {
  const map = new Map<string, Entry>();
  const order = new PlacementOrder(map, (e: Entry) => e.key);
  for (let i = 0; i < n; i++) {
    map.set(`k${i}`, { key: `k${i}`, placedAt: 0 });
    order.place(map.get(`k${i}`)!);
  }
  let most = 0;
  for (let turn = 1; turn <= turns; turn++) {
    for (const e of map.values()) ((e.placedAt = turn), order.place(e));
    most = Math.max(most, order.length);
    if (walk) order.oldest(); // skips what moved
  }
  return { map, order, most };
}

t.test('places are compacted as the front is spent: the array stays near the live entries', async (t) => {
  const { order, most } = moving(1_000, 200, true);
  t.equal(order.length, 1_000, 'every stale place gone once the walk passed it');
  t.ok(most <= 3_000, `at most ${most} places held for 1,000 entries`);
  t.equal(order.oldest()?.key, 'k0', 'the order of the last moves');
});

t.test('a map whose front is never walked: places no longer current are dropped as they pile up', async (t) => {
  const { map, order, most } = moving(100, 1_000, false);
  t.ok(most <= 2 * 100 + 1024 + 1, `at most ${most} places held for 100 entries moved 1,000 times`);
  t.equal(order.oldest()?.key, 'k0', 'still in the order of the last moves');
  map.delete('k0');
  t.equal(order.oldest()?.key, 'k1');
});

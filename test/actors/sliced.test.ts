import t from 'tap';
import { SLICE_MS, Sliced, beginUrgent } from '../../actors/sliced.ts';

const turn = () => new Promise((r) => setImmediate(r));
const until = async (done: () => boolean) => {
  for (let i = 0; i < 10_000 && !done(); i++) await turn();
};

t.test('every item once, jobs in the order they came, nothing before the next turn', async (t) => {
  const out = new Sliced();
  const seen: string[] = [];
  out.push([1, 2, 3], (n) => seen.push(`a${n}`));
  out.push([], () => seen.push('never'));
  out.push([1, 2], (n) => seen.push(`b${n}`));
  t.same(seen, [], 'queued, not run inside the caller');
  await until(() => out.pending === 0);
  t.same(seen, ['a1', 'a2', 'a3', 'b1', 'b2']);
});

t.test('a long job yields to the event loop between slices', async (t) => {
  const out = new Sliced();
  let done = 0;
  let turnsDuring = 0;
  const items = Array.from({ length: 4_000 }, (_, i) => i);
  // Each item costs about 20 µs: the job takes about 80 ms, many slices.
  out.push(items, () => {
    const end = performance.now() + 0.02;
    while (performance.now() < end);
    done++;
  });
  const counting = setInterval(() => done > 0 && done < items.length && turnsDuring++, 0);
  let longest = 0;
  let last = performance.now();
  const watch = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await until(() => out.pending === 0);
  clearInterval(counting);
  clearInterval(watch);
  t.equal(done, items.length, 'every item');
  t.ok(turnsDuring > 3, `timers ran between slices (${turnsDuring} times)`);
  t.ok(
    longest < 2_000,
    `the loop was never held for the whole job (longest gap ${longest.toFixed(1)} ms, slice ${SLICE_MS} ms)`,
  );
});

t.test('an item that throws is reported and the rest go on; clear drops what is queued', async (t) => {
  const errors: unknown[] = [];
  const out = new Sliced((err) => errors.push(err));
  const seen: number[] = [];
  out.push([1, 2, 3], (n) => {
    if (n === 2) throw new Error('boom');
    seen.push(n);
  });
  await until(() => out.pending === 0);
  t.same(seen, [1, 3]);
  t.equal(errors.length, 1);
  out.push([4], (n) => seen.push(n));
  out.clear();
  await turn();
  await turn();
  t.same(seen, [1, 3], 'cleared before it ran');
});

t.test('drained resolves once every queued job is done, at once when none is', async (t) => {
  const out = new Sliced();
  await out.drained();
  const seen: number[] = [];
  out.push([1, 2], (n) => seen.push(n));
  const drained = out.drained().then(() => [...seen]);
  out.push([3], (n) => seen.push(n));
  t.same(await drained, [1, 2, 3], 'after the job queued later too');
});

t.test('while urgent work is under way a fan-out waits for it, 20 ms at most', async (t) => {
  const out = new Sliced();
  let ranAt = 0;
  const urgent = beginUrgent();
  const pushedAt = performance.now();
  out.push([1, 2, 3], () => (ranAt = performance.now()));
  while (out.pending > 0) await new Promise((r) => setTimeout(r, 2));
  t.ok(ranAt - pushedAt >= 19, `held ${Math.round(ranAt - pushedAt)} ms while the urgent work ran`);
  urgent();
  urgent(); // twice counts once
  const at = performance.now();
  out.push([1], () => (ranAt = performance.now()));
  await until(() => out.pending === 0);
  t.ok(ranAt - at < 19, 'not held once it is done');
});

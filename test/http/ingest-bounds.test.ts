// Numbers and merged objects bounded where they enter: huge durations, vitals and prop numbers are per-event
// rejections naming the field; numbers stored before the bounds cannot overflow a read; a visitor's merged
// traits, groups and experiments stay within their key caps however many events add keys.
import t from 'tap';
import { MAX_STORED_KEYS, mergeCapped } from '../../actors/capped-merge.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const sql = s.loupe.services.sql;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const yesterday = (ms: number) => new Date(today - DAY + ms).toISOString();
const send = (events: unknown[]) => s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events } });
let n = 0;
const ev = (extra: Record<string, unknown>) => ({
  id: `b${++n}`,
  name: 'pageview',
  visitor: 'v1',
  session: 's1',
  page: { path: '/' },
  ...extra,
});

t.test('huge durations, vitals and prop numbers are rejected, each naming its field', async (t) => {
  const res = await send([
    ev({ name: 'engagement', props: { timeMs: 1e308 } }),
    ev({ name: 'engagement', props: { timeMs: 86_400_001 } }),
    ev({ props: { x: 1e308 } }),
    ev({ props: { x: -2e15 } }),
    ev({ user: { traits: { ltv: 1e300 } } }),
    ev({ name: 'speed', vitals: { lcp: 1e308 } }),
    ev({ name: 'speed', vitals: { cls: 1e5 } }),
    ev({ name: 'engagement', props: { timeMs: 86_400_000, scrollDepth: 100 } }),
    ev({ props: { x: 1e15 } }),
    ev({ name: 'speed', vitals: { lcp: 2500, cls: 0.1 } }),
  ]);
  t.equal(res.status, 202);
  t.equal(res.body.accepted, 3, 'the events at the bounds are kept');
  t.same(
    res.body.rejected.map((r: { index: number; field: string }) => [r.index, r.field]),
    [
      [0, 'props.timeMs'],
      [1, 'props.timeMs'],
      [2, 'props.x'],
      [3, 'props.x'],
      [4, 'user.traits'],
      [5, 'vitals.lcp'],
      [6, 'vitals.cls'],
    ],
  );
});

t.test('numbers stored before the bounds never make a read overflow', async (t) => {
  // Stored as they could be before ingest bounded them: two reports of 1e308 ms, and a prop of 1e308.
  const r = await send([
    ev({ id: 'old-pv-1', ts: yesterday(1000) }),
    ev({ id: 'old-en-1', name: 'engagement', ts: yesterday(2000), props: { timeMs: 1 } }),
    ev({ id: 'old-pv-2', visitor: 'v2', session: 's2', ts: yesterday(3000), props: { x: 1 } }),
    ev({ id: 'old-en-2', visitor: 'v2', session: 's2', name: 'engagement', ts: yesterday(4000), props: { timeMs: 1 } }),
    ev({ id: 'old-pv-3', visitor: 'v3', session: 's3', ts: yesterday(5000), props: { x: 1 } }),
    ev({ id: 'old-en-3', visitor: 'v3', session: 's3', name: 'engagement', ts: yesterday(6000), props: { timeMs: 1 } }),
  ]);
  t.equal(r.body.accepted, 6);
  await sql`update events set props = jsonb_set(props, '{timeMs}', '1e308') where project_id = 'site' and id in ('old-en-1', 'old-en-2', 'old-en-3')`;
  await sql`update events set props = jsonb_set(props, '{x}', '1e308') where project_id = 'site' and id in ('old-pv-2', 'old-pv-3')`;
  const range = `from=${new Date(today - 7 * DAY).toISOString()}&to=${new Date(today).toISOString()}&traffic=all`;
  for (const path of [
    `/v2/projects/site/stats?${range}`,
    `/v2/projects/site/timeseries?metric=time_on_page&${range}`,
    `/v2/projects/site/timeseries?metric=sum:prop.x&${range}`,
    `/v2/projects/site/timeseries?metric=avg:prop.x&${range}`,
    `/v2/projects/site/breakdown/page?${range}`,
    `/v2/projects/site/breakdown/page?metrics=time_on_page,scroll_depth&${range}&filter[country]=!XX`,
    `/v2/projects/site/retention?${range}`,
    `/v2/stats?${range}`,
  ]) {
    const res = await s.request('GET', path);
    t.equal(res.status, 200, path);
  }
});

t.test("a visitor's merged traits, groups and experiments stay within their caps", async (t) => {
  for (let batch = 0; batch < 4; batch++) {
    const traits = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`t${batch}_${i}`, 'x'.repeat(400)]));
    const groups = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`g${batch}_${i}`, 'team']));
    const experiments = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x${batch}_${i}`, 'b']));
    const res = await send([ev({ visitor: 'collector', user: { id: 'u1', traits }, groups, experiments })]);
    t.equal(res.body.accepted, 1);
    // A checkpoint between batches: the stored row's merge (SQL) is tested as well as the in-memory one.
    if (batch % 2 === 1) await s.settle();
  }
  await s.settle();
  const [row]: [{ traits: object; groups: object; experiments: object }?] =
    await sql`select traits, groups, experiments from visitors where project_id = 'site' and id = 'collector'`;
  t.equal(Object.keys(row!.traits).length, MAX_STORED_KEYS.traits);
  t.equal(Object.keys(row!.groups).length, MAX_STORED_KEYS.groups);
  t.equal(Object.keys(row!.experiments).length, MAX_STORED_KEYS.experiments);
  t.ok('t3_24' in row!.traits, 'the newest keys are kept');
});

t.test('mergeCapped keeps every newer key, then older keys in key order', async (t) => {
  t.same(mergeCapped({ a: 1, b: 2 }, { c: 3 }, 5), { a: 1, b: 2, c: 3 });
  t.same(mergeCapped({ z: 1, a: 2, m: 3 }, { c: 3, a: 9 }, 3), { a: 9, c: 3, m: 3 });
  t.same(mergeCapped({ a: 1 }, { d: 1, c: 2, b: 3 }, 2), { b: 3, c: 2 });
  const [row]: [{ merged: object }?] =
    await sql`select loupe_merge_capped('{"z":1,"a":2,"m":3}'::jsonb, '{"c":3,"a":9}'::jsonb, 3) as merged`;
  t.same(row!.merged, { a: 9, c: 3, m: 3 }, 'the SQL merge keeps the same keys');
});

// The speed reads against a plain-TypeScript reference (test/query/speed-reference.ts) over generated
// samples at and around every threshold: exact over raw samples, and within the stated bound once the
// `speed` job has folded the old days (values within 0.5%, ratings, shares and samples exact).
import t, { type Test } from 'tap';
import { copyLine } from '../../src/db/copy-text.ts';
import { query } from '../../src/db/queries.ts';
import { buildSpeedBlocks } from '../../src/jobs/speed-blocks.ts';
import { buildSpeedDims } from '../../src/jobs/speed-dims.ts';
import { RELATIVE_ERROR } from '../../src/query/speed/buckets.ts';
import { startTestServer } from '../support/server.ts';
import { METRICS, metric, selected, summary, type Sample, type Selection } from '../query/speed-reference.ts';

const s = await startTestServer();
t.teardown(() => s.close());
await s.project('speed-a');
await s.project('speed-b');
const token = await s.token('read');
const sql = s.loupe.services.sql;
const DAY = 86_400_000;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;

// Deterministic samples: two projects, four device kinds, three countries, routes with several paths,
// preview and bot rows, values on, just under and just over each threshold, plus spread and zero values.
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const AROUND = {
  lcp: [2499, 2500, 2501, 3999, 4000, 4001],
  inp: [0, 199, 200, 201, 499, 500, 501],
  cls: [0, 0.0999, 0.1, 0.1001, 0.2499, 0.25, 0.2501],
  fcp: [1799, 1800, 1801, 2999, 3000, 3001],
  ttfb: [799, 800, 801, 1799, 1800, 1801],
};
const SPREAD = { lcp: 6000, inp: 900, cls: 0.5, fcp: 4500, ttfb: 2500 };
const value = (m: keyof typeof AROUND) =>
  rand() < 0.4
    ? pick(AROUND[m])
    : m === 'cls'
      ? Math.round(rand() ** 2 * SPREAD.cls * 10_000) / 10_000
      : Math.round(1 + rand() ** 2 * SPREAD[m]);
const PAGES = [
  ['/', '/'],
  ['/pricing', '/pricing'],
  ['/docs/[...slug]', '/docs/a'],
  ['/docs/[...slug]', '/docs/b'],
  [null, '/about'],
] as const;

function generate(count: number, from: number, to: number): Sample[] {
  return Array.from({ length: count }, (): Sample => {
    const [route, path] = pick(PAGES);
    const metrics = rand() < 0.8 ? [pick(METRICS)] : METRICS.filter(() => rand() < 0.6);
    const vitals = Object.fromEntries(METRICS.map((m) => [m, metrics.includes(m) ? value(m) : null]));
    return {
      project: rand() < 0.7 ? 'speed-a' : 'speed-b',
      ts: Math.floor(from + rand() * (to - from)),
      route: route ?? path,
      path,
      device: pick(['mobile', 'tablet', 'desktop', 'desktop', null]),
      country: pick(['GB', 'US', 'DE', null]),
      environment: rand() < 0.85 ? 'production' : 'preview',
      bot: rand() < 0.05,
      internal: rand() < 0.06,
      element: metrics.some((m) => m === 'lcp' || m === 'inp' || m === 'cls')
        ? pick(['#hero', 'h1', 'button.buy'])
        : null,
      ...(vitals as Pick<Sample, 'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb'>),
    };
  });
}
const recent = generate(1500, today - 6 * DAY, now - 60_000);
const old = generate(700, today - 40 * DAY, today - 32 * DAY);
const samples = [...recent, ...old];
// The events of internal visitors and localhost pages (half each): the flush writes an event before its
// sample, and the samples learn the flags from them.
const flagged = samples.flatMap((x, i) => (x.internal ? [{ x, i }] : []));
for (const { x, i } of flagged)
  await sql`insert into events (project_id, ts, id, name, visitor_id, session_id, is_internal, is_localhost)
    values (${x.project}, ${new Date(x.ts)}, ${`s${i}`}, 'speed', ${`v${i % 97}`}, 'x', ${i % 2 === 0}, ${i % 2 === 1})`;
const row = (x: Sample, i: number) =>
  copyLine([
    x.project,
    new Date(x.ts).toISOString(),
    `s${i}`,
    `v${i % 97}`,
    x.path,
    x.route === x.path ? null : x.route, // stored as the path when the SDK sent no route
    x.device,
    x.country,
    x.environment,
    x.lcp,
    x.inp,
    x.cls,
    x.fcp,
    x.ttfb,
    x.element,
    x.bot ? 90 : 0,
  ]);
// insert_speed_samples.sql's rows in the flush's text form (src/db/flush-text.ts).
await query(sql, 'insert_speed_samples', [samples.map(row).join('\n')]);

const from = today - 45 * DAY;
const to = today + DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const get = async (path: string) => {
  const res = await s.request('GET', path, { token });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
};
type Filter = Selection['filters'][number];
const FILTERS: Filter[][] = [
  [],
  [{ dimension: 'route', value: '/docs/[...slug]', exclude: false }],
  [{ dimension: 'route', value: '/', exclude: true }],
  [{ dimension: 'page', value: '/about', exclude: false }],
  [{ dimension: 'country', value: 'GB', exclude: false }],
  [{ dimension: 'country', value: 'US', exclude: true }],
  [
    { dimension: 'country', value: 'US', exclude: true },
    { dimension: 'page', value: '/docs/a', exclude: false },
  ],
];
const DEVICES = ['all', 'mobile', 'desktop'] as const;
const ENVS = ['production', 'preview', 'all'] as const;
const qs = (q: Record<string, string | number>, filters: Filter[]) =>
  [
    ...Object.entries(q).map(([k, v]) => `${k}=${encodeURIComponent(v)}`),
    ...filters.map((f) => `filter[${f.dimension}]=${encodeURIComponent((f.exclude ? '!' : '') + f.value)}`),
  ].join('&');

type Combo = {
  device: (typeof DEVICES)[number];
  environment: (typeof ENVS)[number];
  percentile: number;
  filters: Filter[];
};
// Every percentile once, every device and environment, every filter on every device (p75 and p99 in turn).
const combos: Combo[] = [
  ...[50, 90, 95, 99].map((percentile) => ({
    device: 'all' as const,
    environment: 'production' as const,
    percentile,
    filters: [],
  })),
  ...DEVICES.flatMap((device) => ENVS.map((environment) => ({ device, environment, percentile: 75, filters: [] }))),
  ...DEVICES.flatMap((device, d) =>
    FILTERS.slice(1).map((filters, f) => ({
      device,
      environment: 'production' as const,
      percentile: (d + f) % 2 === 0 ? 75 : 99,
      filters,
    })),
  ),
];
const selection = (c: Combo, projects: string[], range = { from, to }): Selection => ({
  projects,
  ...range,
  environment: c.environment,
  device: c.device,
  filters: c.filters,
});
const curves = (c: Combo) => (c.device === 'desktop' ? 'desktop' : 'mobile');
const params = (c: Combo, range = { from, to }) =>
  qs(
    {
      from: iso(range.from),
      to: iso(range.to),
      device: c.device,
      environment: c.environment,
      percentile: c.percentile,
    },
    c.filters,
  );

/** Exact, or (folded) each value within the bound, scores within a point, everything else exact. */
function sameMetric(t: Test, got: any, want: any, folded: boolean, label: string) {
  if (!folded || want.value === null) return t.same(got, want, label);
  const { value, score, ...rest } = got;
  const { value: wv, score: ws, ...wrest } = want;
  t.same(rest, wrest, `${label}: rating, samples and shares`);
  t.ok(Math.abs(value - wv) <= RELATIVE_ERROR * wv * (1 + 1e-9), `${label}: ${value} within 0.5% of ${wv}`);
  if (ws !== null) t.ok(Math.abs(score - ws) <= 1, `${label}: score ${score} within 1 of ${ws}`);
}
function sameAnswer(t: Test, got: any, want: ReturnType<typeof summary>, folded: boolean, label: string) {
  for (const m of METRICS) sameMetric(t, got.metrics[m], want.metrics[m], folded, `${label} ${m}`);
  t.equal(got.samples, want.samples, `${label}: samples`);
  if (folded && want.score !== null) t.ok(Math.abs(got.score - want.score) <= 1, `${label}: score within 1`);
  else t.same([got.score, got.rating], [want.score, want.rating], `${label}: score and rating`);
}

async function checkSummaries(t: Test, folded: boolean) {
  for (const c of combos) {
    const label = params(c);
    const one = await get(`/v2/projects/speed-a/speed?${label}`);
    sameAnswer(
      t,
      one.data,
      summary(selected(samples, selection(c, ['speed-a'])), c.percentile, curves(c)),
      folded,
      `a ${label}`,
    );
    t.same(
      [one.percentile, one.device, one.environment, one.traffic],
      [c.percentile, c.device, c.environment, 'human'],
    );
    const both = await get(`/v2/speed?${label}`);
    const want = summary(selected(samples, selection(c, ['speed-a', 'speed-b'])), c.percentile, curves(c));
    sameAnswer(t, both.data, want, folded, `all ${label}`);
  }
}

async function checkRoutes(t: Test, folded: boolean) {
  for (const group of ['route', 'path'] as const)
    for (const c of combos.filter((c) => c.environment === 'production' && [50, 75, 99].includes(c.percentile))) {
      const body = await get(`/v2/projects/speed-a/speed/routes?${params(c)}&group=${group}&minShare=0&limit=100`);
      const rows = selected(samples, selection(c, ['speed-a']));
      const keys = [...new Set(rows.map((x) => (group === 'route' ? x.route : x.path)))];
      t.equal(body.data.length, keys.length, `${group} ${params(c)}: one row a ${group}`);
      for (const row of body.data) {
        const want = summary(
          rows.filter((x) => (group === 'route' ? x.route : x.path) === row.route),
          c.percentile,
          curves(c),
        );
        sameAnswer(t, { ...row, metrics: row }, want, folded, `${group} ${row.route} ${params(c)}`);
      }
      const samplesOrder = body.data.map((r: { samples: number }) => r.samples);
      t.same(
        samplesOrder,
        [...samplesOrder].sort((x, y) => y - x),
        'most samples first',
      );
    }
}

/** Ranges that start or end inside a day, in the raw window (folded days count whole, so none here). */
async function checkPartDays(t: Test, folded: boolean) {
  const ranges = [
    { from: today - 5 * DAY + 7 * 3_600_000, to: now - 3 * 3_600_000 },
    { from: today - 2 * DAY + 11 * 3_600_000, to: today - DAY + 5 * 3_600_000 },
    { from: today - 20 * DAY + 3 * 3_600_000, to: today - 4 * DAY },
    ...(folded ? [{ from: today - 38 * DAY, to: today - 2 * DAY + 5 * 3_600_000 }] : []),
  ];
  for (const range of ranges)
    for (const [d, device] of DEVICES.entries())
      for (const percentile of [75, 99]) {
        // Unfiltered, one route or country kept or left out (day counts), one page (raw samples) in turn.
        const filters = [[], FILTERS[1]!, FILTERS[4]!, FILTERS[3]!, FILTERS[5]!, FILTERS[2]!][
          d * 2 + (percentile === 75 ? 0 : 1)
        ]!;
        const c: Combo = { device, environment: 'production', percentile, filters };
        const body = await get(`/v2/projects/speed-a/speed?${params(c, range)}`);
        const want = summary(selected(samples, selection(c, ['speed-a'], range)), percentile, curves(c));
        sameAnswer(t, body.data, want, folded && range.from < today - 30 * DAY, `part days ${params(c, range)}`);
      }
  // The list per path: whole days from the path counts, the part-days from the raw samples.
  for (const range of ranges)
    for (const device of DEVICES) {
      const c: Combo = { device, environment: 'production', percentile: 75, filters: [] };
      const body = await get(`/v2/projects/speed-a/speed/routes?${params(c, range)}&group=path&minShare=0&limit=100`);
      const rows = selected(samples, selection(c, ['speed-a'], range));
      t.equal(body.data.length, new Set(rows.map((x) => x.path)).size, `paths ${params(c, range)}: one row a path`);
      for (const row of body.data) {
        const want = summary(
          rows.filter((x) => x.path === row.route),
          75,
          curves(c),
        );
        sameAnswer(t, { ...row, metrics: row }, want, folded && range.from < today - 30 * DAY, `path ${row.route}`);
      }
    }
}

t.test("the samples of internal visitors and localhost pages carry their event's flags", async (t) => {
  const [n] = await sql<{ internal: number; localhost: number }[]>`
    select count(*) filter (where is_internal)::int as internal, count(*) filter (where is_localhost)::int as localhost
    from speed_samples`;
  t.same(n, {
    internal: flagged.filter(({ i }) => i % 2 === 0).length,
    localhost: flagged.filter(({ i }) => i % 2 === 1).length,
  });
});

t.test('raw samples: every read exact against the reference', async (t) => {
  await checkSummaries(t, false);
  await checkRoutes(t, false);
  await checkPartDays(t, false);
});

t.test('speed/timeseries by day and by hour, and speed/elements', (t) => checkSeriesAndElements(t));

t.test('the speed job counts finished days by route, country and element; every read stays exact', async (t) => {
  const built = await buildSpeedDims(sql, new Date());
  t.ok(built.dimDays > 0 && built.dimRows > 0, `days built (${JSON.stringify(built)})`);
  t.same(await buildSpeedDims(sql, new Date()), { dimDays: 0, dimRows: 0 }, 'a day is built once');
  const blocks = await buildSpeedBlocks(sql, new Date());
  t.ok(blocks.blocks > 0 && blocks.blockRows > 0, `route blocks built (${JSON.stringify(blocks)})`);
  t.same(await buildSpeedBlocks(sql, new Date()), { blocks: 0, blockRows: 0 }, 'a block is built once');
  await checkSummaries(t, false);
  await checkRoutes(t, false);
  await checkPartDays(t, false);
  await checkSeriesAndElements(t);
  await checkPages(t);
  // A late sample of a built day: the insert trigger adds it to the day's counts.
  const late = { ...samples.find((x) => x.project === 'speed-a' && x.ts > today - 3 * DAY && x.lcp !== null)! };
  Object.assign(late, { ts: today - 2 * DAY + 1000, country: 'GB', route: '/pricing', path: '/pricing', lcp: 4000 });
  Object.assign(late, { bot: false, internal: false, environment: 'production', element: '#hero' });
  samples.push(late);
  await query(sql, 'insert_speed_samples', [row(late, samples.length - 1)]);
  // And one of a day inside built blocks, of a route new to that day.
  const older = { ...late, ts: today - 10 * DAY + 5000, route: '/late', path: '/late', inp: 321 };
  samples.push(older);
  await query(sql, 'insert_speed_samples', [row(older, samples.length - 1)]);
  t.same(await blocksOffTheirDays(), [], 'every block is the sum of its days');
  t.same(await pathDaysOffTheirSamples(), [], 'the path day counts are their human samples, late ones too');
  await checkSummaries(t, false);
  await checkRoutes(t, false);
});

/** The lists score only the rows of the page they answer: pages walked by cursor are the whole list. */
async function checkPages(t: Test) {
  const range = `from=${iso(today - 6 * DAY)}&to=${iso(now)}`;
  for (const list of [
    '/v2/projects/speed-a/speed/routes?minShare=0',
    '/v2/speed/routes?minShare=0&percentile=90&device=mobile',
    '/v2/projects/speed-a/speed/elements?metric=lcp',
    '/v2/projects/speed-a/speed/routes?minShare=0.1&percentile=50',
    '/v2/projects/speed-a/speed/routes?minShare=0&group=path&device=desktop',
    '/v2/speed/routes?minShare=0&group=path&percentile=95',
  ]) {
    const all = await get(`${list}&${range}&limit=100`);
    const pages = [];
    let cursor: string | null = null;
    do {
      const page = await get(`${list}&${range}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    t.ok(all.data.length > 2, `${list}: more than a page`);
    t.same(pages, all.data, `${list}: pages of 2 are the whole list`);
  }
}

/** The route blocks whose counts differ from their days' speed_dims rows (none when kept right). */
const blocksOffTheirDays = () => sql`
  with k as (select * from speed_route_blocks_built),
  a as (select b.project_id, b.size, b.start, b.environment, b.device, b.route, b.metric, b.bucket, b.n
    from speed_route_blocks b),
  e as (select k.project_id, k.size, k.start, d.environment, c.device, d.value as route, m.metric, m.bucket,
      sum(d.n)::bigint as n
    from k join speed_dims d on d.project_id = k.project_id and d.dim = 0 and d.day >= k.start
      and d.day < k.start + k.size
      cross join lateral (values (d.device), ('*')) as c(device) -- '*': every class merged (0070)
      -- metric 10 + m: metric m by coarse bucket (0071)
      cross join lateral (values (d.metric, d.bucket),
        ((d.metric + 10)::smallint, loupe_speed_coarse(d.metric, d.bucket))) as m(metric, bucket)
    group by 1, 2, 3, 4, 5, 6, 7, 8)
  (select * from a except select * from e) union all (select * from e except select * from a)`;

/** The path day counts (0073) that differ from their days' human raw and folded samples (none when kept right). */
const pathDaysOffTheirSamples = () => sql`
  with e as (select project_id, day, environment, device, path, metric, sum(n)::int as n from (
      select s.project_id, (s.ts at time zone 'UTC')::date as day, s.environment,
        loupe_speed_device_class(s.device) as device, s.path, m.metric, 1 as n
      from speed_samples s cross join lateral (values (0::smallint, s.lcp), (1::smallint, s.inp),
        (2::smallint, s.cls), (3::smallint, s.fcp), (4::smallint, s.ttfb)) as m(metric, value)
      where m.value is not null and not (s.bot_score >= 50 or s.is_internal or s.is_localhost)
      union all
      select project_id, day, environment, loupe_speed_device_class(device), path, metric, n
      from speed_days where not bot) x
    group by 1, 2, 3, 4, 5, 6),
  a as (select project_id, day, environment, device, path, metric, n from speed_path_days)
  (select * from a except select * from e) union all (select * from e except select * from a)`;

async function checkSeriesAndElements(t: Test) {
  for (const m of METRICS)
    for (const device of DEVICES) {
      const c: Combo = { device, environment: 'production', percentile: 75, filters: [] };
      const week = { from: today - 3 * DAY, to: today + DAY };
      for (const interval of ['day', 'hour'] as const) {
        const body = await get(
          `/v2/projects/speed-a/speed/timeseries?${params(c, week)}&metric=${m}&interval=${interval}`,
        );
        const step = interval === 'day' ? DAY : 3_600_000;
        t.equal(body.data.length, (week.to - week.from) / step, `${m} ${interval}: every bucket`);
        for (const b of body.data.filter((_: unknown, i: number) => i % 7 === 0)) {
          const start = Date.parse(b.bucket);
          const want = metric(
            selected(samples, selection(c, ['speed-a'], { from: start, to: start + step })),
            m,
            75,
            curves(c),
          );
          const { bucket, ...got } = b;
          t.same(got, want, `${m} ${interval} ${bucket}`);
        }
      }
      const els = await get(`/v2/projects/speed-a/speed/elements?${params(c)}&metric=${m}`);
      const rows = selected(samples, selection(c, ['speed-a'])).filter((x) => x.element !== null && x[m] !== null);
      const names = m === 'fcp' || m === 'ttfb' ? [] : [...new Set(rows.map((x) => x.element))];
      t.equal(els.data.length, names.length, `${m} ${device}: one row an element`);
      for (const e of els.data) {
        const want = metric(
          rows.filter((x) => x.element === e.element),
          m,
          75,
          curves(c),
        );
        t.same(e, {
          element: e.element,
          samples: want.samples,
          value: want.value,
          rating: want.rating,
          score: want.score,
        });
      }
    }
}

t.test('parameters: filters, interval, metric, minShare, paging and format', async (t) => {
  const base = `/v2/projects/speed-a/speed`;
  const bad = await s.request('GET', `${base}?filter[browser]=Chrome`, { token });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.details[0].field, 'query.filter[browser]', 'names the filter');
  const hourTooLong = await s.request('GET', `${base}/timeseries?metric=lcp&interval=hour&period=30d`, { token });
  t.same([hourTooLong.status, hourTooLong.body.error.details[0].field], [400, 'query.interval']);
  const hourTooOld = await s.request(
    'GET',
    `${base}/timeseries?metric=lcp&interval=hour&from=${iso(today - 35 * DAY)}&to=${iso(today - 33 * DAY)}`,
    { token },
  );
  t.same(
    [hourTooOld.status, hourTooOld.body.error.details[0].field],
    [400, 'query.interval'],
    'hours only in the raw window',
  );
  for (const path of ['timeseries', 'elements']) {
    const none = await s.request('GET', `${base}/${path}`, { token });
    t.same([none.status, none.body.error.details[0].field], [400, 'query.metric'], `${path} needs a metric`);
  }
  for (const q of ['percentile=80', 'device=tv', 'group=page', 'minShare=2', 'interval=week', 'limit=0'])
    t.equal((await s.request('GET', `${base}/routes?${q}`, { token })).status, 400, q);
  const range = `from=${iso(from)}&to=${iso(to)}`;
  const all = await get(`${base}/routes?${range}&group=path&minShare=0`);
  const kept = await get(`${base}/routes?${range}&group=path&minShare=0.25`);
  const total = all.data.reduce((n: number, r: { samples: number }) => n + r.samples, 0);
  t.same(
    kept.data.map((r: { route: string }) => r.route),
    all.data.filter((r: { samples: number }) => r.samples / total >= 0.25).map((r: { route: string }) => r.route),
    'minShare keeps the paths with at least that share of samples',
  );
  const first = await get(`${base}/routes?${range}&group=path&minShare=0&limit=2`);
  const second = await get(`${base}/routes?${range}&group=path&minShare=0&limit=2&cursor=${first.nextCursor}`);
  t.same([...first.data, ...second.data], all.data.slice(0, 4), 'pages follow each other');
  const csv = await s.request('GET', `${base}/routes?${range}&minShare=0&format=csv`, { token });
  t.match(csv.text.split('\n')[0], /^route,score,rating,samples,lcp\.value,/, 'csv header with dotted columns');
  t.equal(
    csv.text.trim().split('\n').length,
    1 + (await get(`${base}/routes?${range}&minShare=0&limit=100`)).data.length,
  );
  const across = await get(`/v2/speed/routes?${range}&minShare=0&limit=100`);
  t.ok(
    across.data.every((r: { project: string }) => ['speed-a', 'speed-b'].includes(r.project)),
    'rows name their project',
  );
});

t.test('the speed job folds old days; answers stay within the bound', async (t) => {
  const before = await get(`/v2/projects/speed-a/speed?from=${iso(today - 7 * DAY)}&to=${iso(to)}`);
  const run = await s.request('POST', '/v2/admin/jobs/speed', { token: 'cron-secret-for-tests-0123456789' });
  t.equal(run.status, 200);
  t.equal(run.body.data.summary.samples, old.length, 'every old sample folded');
  const [left] = await sql<
    { n: number }[]
  >`select count(*)::int as n from speed_samples where ts < ${new Date(today - 30 * DAY)}`;
  t.equal(left!.n, 0, 'no raw sample older than 30 days');
  const again = await s.request('POST', '/v2/admin/jobs/speed', { token: 'cron-secret-for-tests-0123456789' });
  t.equal(again.body.data.summary.samples, 0, 'a second run has nothing to fold');
  t.same(
    await get(`/v2/projects/speed-a/speed?from=${iso(today - 7 * DAY)}&to=${iso(to)}`),
    before,
    'the raw window is unchanged',
  );
  t.same(await pathDaysOffTheirSamples(), [], 'folding leaves the path day counts their samples');
  await checkSummaries(t, true);
  await checkRoutes(t, true);
  await checkPartDays(t, true);
  const c: Combo = { device: 'all', environment: 'production', percentile: 90, filters: [] };
  const span = { from: today - 41 * DAY, to: today - 31 * DAY };
  const series = await get(`/v2/projects/speed-a/speed/timeseries?${params(c, span)}&metric=lcp`);
  t.equal(series.data.length, 10, 'a bucket a folded day');
  for (const b of series.data) {
    const start = Date.parse(b.bucket);
    const want = metric(
      selected(samples, selection(c, ['speed-a'], { from: start, to: start + DAY })),
      'lcp',
      90,
      'mobile',
    );
    const { bucket, ...got } = b;
    sameMetric(t, got, want, true, `folded day ${bucket}`);
  }
});

t.test('retention drops folded days past the project retention', async (t) => {
  await sql`update projects set retention_days = 35 where id = 'speed-a'`;
  const run = await s.request('POST', '/v2/admin/jobs/retention', { token: 'cron-secret-for-tests-0123456789' });
  t.equal(run.status, 200);
  t.ok(run.body.data.summary.speed_days > 0, `folded rows dropped (${run.body.data.summary.speed_days})`);
  const [left] = await sql<{ n: number }[]>`
    select count(*)::int as n from speed_days where project_id = 'speed-a' and day < ${new Date(today - 35 * DAY)}::date`;
  t.equal(left!.n, 0, 'none older than 35 days');
  const [blocks] = await sql<{ n: number }[]>`
    select count(*)::int as n from speed_route_blocks_built
    where project_id = 'speed-a' and start < ${new Date(today - 35 * DAY)}::date`;
  t.equal(blocks!.n, 0, 'no route block starting before the cutoff');
  t.same(await blocksOffTheirDays(), [], 'every block left is the sum of its days');
  t.same(await pathDaysOffTheirSamples(), [], 'the path day counts left are their samples');
  const kept = old.filter((x) => x.project === 'speed-a' && x.ts >= today - 35 * DAY);
  const body = await get(`/v2/projects/speed-a/speed?from=${iso(from)}&to=${iso(today - 30 * DAY)}&environment=all`);
  const want = kept.filter((x) => !x.bot && !x.internal);
  t.equal(
    body.data.metrics.lcp.samples,
    want.filter((x) => x.lcp !== null).length,
    'the days inside retention still answer',
  );
});

t.test('access: a private project is hidden; the across read covers only readable projects', async (t) => {
  t.equal((await s.request('GET', '/v2/projects/speed-a/speed')).status, 404, 'anonymous: 404');
  const anonymous = await s.request('GET', `/v2/speed?from=${iso(from)}&to=${iso(to)}`);
  t.same(
    [anonymous.status, anonymous.body.data.samples, anonymous.body.data.score],
    [200, 0, null],
    'nothing readable',
  );
  const onlyB = await s.token('read', ['speed-b']);
  const b = await s.request('GET', `/v2/speed/routes?from=${iso(from)}&to=${iso(to)}&minShare=0`, { token: onlyB });
  t.ok(b.body.data.length > 0 && b.body.data.every((r: { project: string }) => r.project === 'speed-b'), 'one project');
  t.equal((await s.request('GET', '/v2/projects/speed-a/speed/elements?metric=lcp', { token: onlyB })).status, 404);
});

t.test("the buckets: thresholds are edges, every value within the bound of its bucket's value", async (t) => {
  const { THRESHOLDS } = await import('../../src/query/speed/score.ts');
  for (const [i, m] of METRICS.entries()) {
    const { good, poor } = THRESHOLDS[m];
    const [edges] = await sql<{ a: number; b: number; c: number; d: number }[]>`
      select loupe_speed_bucket_of(${i}::smallint, ${good}) as a, loupe_speed_bucket_of(${i}::smallint, ${good * (1 + 1e-12)}) as b,
        loupe_speed_bucket_of(${i}::smallint, ${poor}) as c, loupe_speed_bucket_of(${i}::smallint, ${poor * (1 + 1e-12)}) as d`;
    t.ok(edges!.a < edges!.b && edges!.c < edges!.d, `${m}: ${good} and ${poor} end their buckets`);
    const [worst] = await sql<{ err: number; flips: number }[]>`
      with v as (select ${i}::smallint as metric, x from (select 10 ^ (g / 250.0 - 1) * ${poor} as x from generate_series(0, 500) g) a),
      r as (select x, loupe_speed_value_of(metric, loupe_speed_bucket_of(metric, x)) as rep from v)
      select max(abs(rep - x) / x) as err,
        count(*) filter (where (x <= ${good}) <> (rep <= ${good}) or (x > ${poor}) <> (rep > ${poor}))::int as flips from r`;
    t.ok(worst!.err <= RELATIVE_ERROR * (1 + 1e-9), `${m}: worst relative error ${worst!.err}`);
    t.equal(worst!.flips, 0, `${m}: no value changes rating`);
  }
});

t.test('coarse buckets: 16 buckets in a row, never across a threshold, their ranges inverse', async (t) => {
  const { THRESHOLDS } = await import('../../src/query/speed/score.ts');
  for (const [i, m] of METRICS.entries()) {
    const { good, poor } = THRESHOLDS[m];
    const [check] = await sql<{ bad: number; across: number; widest: number }[]>`
      with v as (select b, loupe_speed_coarse(${i}::smallint, b) as c
        from (select loupe_speed_bucket_of(${i}::smallint, 10 ^ (g / 500.0 - 2) * ${poor}) as b
          from generate_series(0, 1500) g union select -1000000) x),
      r as (select b, c, loupe_speed_coarse_lo(${i}::smallint, c) as lo, loupe_speed_coarse_hi(${i}::smallint, c) as hi from v)
      select count(*) filter (where b < lo or b > hi or loupe_speed_coarse(${i}::smallint, lo) <> c
          or loupe_speed_coarse(${i}::smallint, hi) <> c)::int as bad,
        count(*) filter (where (loupe_speed_value_of(${i}::smallint, b) <= ${good}) <> (c <= 0)
          or (loupe_speed_value_of(${i}::smallint, b) > ${poor}) <> (c >= 2000000))::int as across,
        max(hi - lo + 1) filter (where b > -1000000)::int as widest
      from r`;
    t.equal(check!.bad, 0, `${m}: each bucket lies in its coarse bucket's range`);
    t.equal(check!.across, 0, `${m}: a coarse bucket lies on one side of each threshold`);
    t.equal(check!.widest, 16, `${m}: 16 buckets at most`);
  }
});

// Reference data for the aggregate-read tests: a seeded generator of visitors, sessions and events,
// a sender (secret key, past timestamps), and the metrics computed in plain TypeScript from what was sent;
// for the rollup tests, what the background builder does (off in their servers) and a read's scope.
import type { Sql } from 'postgres';
import type { Test } from 'tap';
import { parseMetricList, readBreakdown } from '../../src/query/breakdown.ts';
import type { Fragment } from '../../src/query/dimensions.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Filter } from '../../src/query/params.ts';
import type { Metric } from '../../src/query/metrics.ts';
import { buildPendingRollups } from '../../src/query/rollup/builder.ts';
import { rollupPageGroups } from '../../src/query/rollup/pages.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

export type Sent = {
  id: string;
  ts: number;
  name: string;
  visitor: string;
  session: string;
  path: string;
  host: string;
  country: string | null;
  plan: string;
  bot: boolean;
  internal: boolean;
  localhost: boolean;
  environment: 'production' | 'preview';
};
export type RefScope = {
  from: number;
  to: number;
  traffic: 'human' | 'bots' | 'internal' | 'all';
  environment: 'production' | 'preview' | 'all';
  filters?: Record<string, string>;
};

const DAY = 86_400_000;
const MIN = 60_000;
const PATHS = ['/', '/pricing', '/docs', '/blog/a', '/blog/b'];

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Events over the `days` days starting at `start`, per visitor in time order, sessions split by ≥ 2 h. */
export function generate(prefix: string, start: number, days: number, visitors = 150, seed = 7): Sent[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: Sent[] = [];
  let n = 0;
  for (let v = 0; v < visitors; v++) {
    const kind = rnd();
    const bot = kind < 0.08,
      internal = kind >= 0.08 && kind < 0.14,
      localhost = kind >= 0.14 && kind < 0.17;
    const environment = rnd() < 0.12 ? 'preview' : 'production';
    const country = rnd() < 0.4 ? 'GB' : null;
    const plan = pick(['free', 'pro', 'team']);
    const visitor = `${prefix}v${v}`;
    let t = start + Math.floor(rnd() * (days - 1) * DAY);
    const sessions = 1 + Math.floor(rnd() * 4);
    for (let s = 0; s < sessions && t < start + days * DAY; s++) {
      const session = `${visitor}s${s}`;
      const count = 1 + Math.floor(rnd() * 10);
      for (let i = 0; i < count && t < start + days * DAY; i++) {
        const r = rnd();
        const name =
          i === 0
            ? r < 0.85
              ? 'pageview'
              : 'signup'
            : r < 0.65
              ? 'pageview'
              : r < 0.75
                ? 'signup'
                : r < 0.82
                  ? 'click'
                  : 'engagement';
        out.push({
          id: `${prefix}e${++n}`,
          ts: t,
          name,
          visitor,
          session,
          path: pick(PATHS),
          host: localhost ? 'localhost' : 'shop.example.com',
          country,
          plan,
          bot,
          internal,
          localhost,
          environment,
        });
        t += Math.floor(1 + rnd() * 20 * MIN);
      }
      t += 2 * 3_600_000 + Math.floor(rnd() * 2 * DAY);
    }
  }
  return out;
}

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/**
 * The server the reference comparisons run on: ingest unthrottled, the background builder off (the tests
 * build with buildRollups) unless `builder`, closed with the test; the projects by id, an owner member and
 * the server's SQL client.
 */
export async function referenceServer(t: Test, projectIds: string[], opts: { builder?: boolean } = {}) {
  const s = await startTestServer({
    ingestRate: { capacity: 100_000, refillPerSecond: 100_000 },
    ...(opts.builder ? {} : { rollupBuildMs: 0 }),
  });
  t.teardown(() => s.close());
  const projects = [];
  for (const id of projectIds) projects.push(await s.project(id));
  const owner = await s.member('owner');
  return { s, projects, owner, sql: s.loupe.services.sql };
}

/** A filter as a read's scope holds it. */
export const filterOf = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });

/** The most common value of an events column (of `project`, or of every project), ties by value: a filter
 *  value that selects something in any generated data. */
export async function mostCommon(sql: Sql, column: string, project?: string): Promise<string> {
  const [row] = await sql<{ v: string }[]>`
    select ${sql(column)} as v from events
    where ${sql(column)} is not null ${project ? sql`and project_id = ${project}` : sql``}
    group by 1 order by count(*) desc, 1 limit 1`;
  return row!.v;
}

/** A reference server whose project `site` holds `days` days of generated traffic through a minute ago
 *  (generate's prefix, visitors and seed), built into its rollups. */
export async function seededSite(t: Test, days: number, gen: { prefix: string; visitors: number; seed: number }) {
  const { s, projects, owner, sql } = await referenceServer(t, ['site']);
  const now = Date.now();
  const today = Math.floor(now / DAY) * DAY;
  const start = today - (days - 1) * DAY;
  const events = generate(gen.prefix, start, days, gen.visitors, gen.seed).filter((e) => e.ts < now - 60_000);
  await send(s, projects[0]!.secretKey, events, owner.cookie);
  await buildRollups(s);
  return { s, site: projects[0]!, owner, sql, now, today, start, events };
}

/** The background builder's pass over every project, once the actor's deltas are applied. */
export async function buildRollups(s: TestServer) {
  await s.settle();
  const sql = s.loupe.services.sql;
  const ids = (await sql<{ id: string }[]>`select id from projects`).map((r) => r.id);
  return buildPendingRollups(sql, ids);
}

/** A read's scope over [from, to) without filters. */
export const rollupScope = (
  from: number,
  to: number,
  traffic: Scope['traffic'],
  environment: Scope['environment'],
  projectIds = ['site'],
): Scope => ({ projectIds, range: { from: new Date(from), to: new Date(to) }, traffic, environment, filters: [] });

/** A breakdown from the rollups' rows against the raw path's (the first 1,000 rows); none fails, as the
 *  rollups must answer. Answers the raw path's page. */
export async function sameAsRaw(
  t: Test,
  sql: Sql,
  scope: Scope,
  key: Fragment,
  list: Metric[],
  rolled: { grouped: Fragment } | null,
  label: string,
) {
  const want = await readBreakdown(sql, scope, key, list, 0, 1000);
  if (!rolled) t.fail(`the rollups answer: ${label}`);
  else t.same(await readBreakdown(sql, scope, key, list, 0, 1000, rolled.grouped), want, label);
  return want;
}

const pageMetrics = parseMetricList(
  'visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session,time_on_page,scroll_depth',
  [],
);

/** The page breakdown from the rollups against the raw path, every metric; the means of time and scroll to
 *  float rounding (summed in another order). */
export async function samePages(t: Test, sql: Sql, scope: Scope, label: string) {
  const rolled = await rollupPageGroups(sql, scope, pageMetrics);
  t.ok(rolled, `the page rollups answer (${label})`);
  const got = await readBreakdown(sql, scope, sql`e.path`, pageMetrics, 0, 100, rolled!.grouped);
  const want = await readBreakdown(sql, scope, sql`e.path`, pageMetrics, 0, 100);
  t.same(
    got.rows.map((r) => r.value),
    want.rows.map((r) => r.value),
    `pages in order ${label}`,
  );
  t.equal(got.total, want.total, `page total ${label}`);
  got.rows.forEach((r, i) => {
    const w = want.rows[i]!;
    for (const m of pageMetrics) {
      const [a, b] = [r[m.member] as number, w[m.member] as number];
      if (m.name === 'time_on_page' || m.name === 'scroll_depth')
        t.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${label} ${r.value} ${m.name}`);
      else t.equal(a, b, `${label} ${r.value} ${m.name}`);
    }
    t.equal(r.share, w.share, `${label} ${r.value} share`);
  });
}

/** Sends with the secret key, in time order, in batches per header kind (bot user agent, owner cookie). */
export async function send(s: TestServer, secretKey: string, events: Sent[], ownerCookie: string) {
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  for (const group of [
    sorted.filter((e) => !e.bot && !e.internal),
    sorted.filter((e) => e.bot),
    sorted.filter((e) => e.internal),
  ]) {
    for (let i = 0; i < group.length; i += 400) {
      const batch = group.slice(i, i + 400);
      const headers: Record<string, string> = {
        'user-agent': batch[0]!.bot ? googlebot : chrome,
        ...(batch[0]!.internal ? { cookie: ownerCookie } : {}),
      };
      const res = await s.request('POST', '/v2/ingest', {
        token: secretKey,
        headers,
        body: { events: batch.map(toWire) },
      });
      if (res.status !== 202 || res.body.accepted !== batch.length)
        throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    }
  }
}

const toWire = (e: Sent) => ({
  id: e.id,
  name: e.name,
  visitor: e.visitor,
  ts: new Date(e.ts).toISOString(),
  environment: e.environment,
  page: { url: `${e.localhost ? 'http://localhost:3000' : 'https://shop.example.com'}${e.path}` },
  props:
    e.name === 'engagement'
      ? { timeMs: timeMsOf(e), scrollDepth: scrollOf(e) }
      : { plan: e.plan, ...(amountOf(e) === null ? {} : { amount: amountOf(e) }) },
  user: { traits: { tier: tierOf(e.visitor) } },
  ...(companyOf(e.visitor) === null ? {} : { groups: { company: companyOf(e.visitor)! } }),
  context: { ip: e.country === 'GB' ? '81.2.69.142' : '10.1.2.3', userAgent: e.bot ? googlebot : chrome },
});

// What toWire adds on top of Sent, derived from the event's and visitor's numbers (no extra randomness).
const numberOf = (id: string) => Number(id.slice(id.lastIndexOf('e') + 1));
const visitorNumber = (visitor: string) => Number(visitor.slice(visitor.lastIndexOf('v') + 1));
/** Numeric prop `amount` on non-engagement events (absent on every fifth). */
export const amountOf = (e: Sent): number | null =>
  e.name === 'engagement' || numberOf(e.id) % 5 === 0 ? null : (numberOf(e.id) % 7) * 1.25;
/** Engagement props: cumulative visible time and deepest scroll. */
export const timeMsOf = (e: Sent) => 1000 + ((numberOf(e.id) * 7919) % 60_000);
export const scrollOf = (e: Sent) => (numberOf(e.id) * 13) % 101;
/** The visitor's `tier` trait and `company` group (none for every fourth visitor). */
export const tierOf = (visitor: string) => ['gold', 'silver', 'bronze'][visitorNumber(visitor) % 3]!;
export const companyOf = (visitor: string) =>
  visitorNumber(visitor) % 4 === 0 ? null : `c${visitorNumber(visitor) % 3}`;

export const dimensionOf: Record<string, (e: Sent) => string | null> = {
  page: (e) => e.path,
  event: (e) => e.name,
  country: (e) => e.country,
  'prop:plan': (e) => (e.name === 'engagement' ? null : e.plan),
  'trait:tier': (e) => tierOf(e.visitor),
  'group:company': (e) => companyOf(e.visitor),
  project: (e) => e.visitor.slice(0, e.visitor.lastIndexOf('v')),
};

export function matches(e: Sent, q: RefScope): boolean {
  if (e.ts < q.from || e.ts >= q.to) return false;
  if (q.traffic === 'human' && (e.bot || e.internal || e.localhost)) return false;
  if (q.traffic === 'bots' && !e.bot) return false;
  if (q.traffic === 'internal' && !e.internal) return false;
  if (q.environment !== 'all' && e.environment !== q.environment) return false;
  for (const [dim, raw] of Object.entries(q.filters ?? {})) {
    const value = dimensionOf[dim]!(e);
    if (raw.startsWith('!') ? value === raw.slice(1) : value !== raw) return false;
  }
  return true;
}

export type RefSession = { visitor: string; first: number; pageviews: number; custom: number; duration: number };

export function refSessions(events: Sent[], q: RefScope): RefSession[] {
  const by = new Map<string, Sent[]>();
  for (const e of events) if (matches(e, q)) by.set(e.session, [...(by.get(e.session) ?? []), e]);
  return [...by.values()]
    .filter((es) => es.some((e) => e.name !== 'engagement'))
    .map((es) => {
      const ts = es.map((e) => e.ts);
      return {
        visitor: es[0]!.visitor,
        first: Math.min(...ts),
        pageviews: es.filter((e) => e.name === 'pageview').length,
        custom: es.filter((e) => !['pageview', 'engagement', 'speed', 'error'].includes(e.name)).length,
        duration: Math.max(...ts) - Math.min(...ts),
      };
    });
}

export function refStats(events: Sent[], q: RefScope) {
  const ss = refSessions(events, q);
  const sessions = ss.length;
  const pageviews = ss.reduce((a, s) => a + s.pageviews, 0);
  const r = (n: number) => (sessions === 0 ? 0 : n / sessions);
  return {
    visitors: new Set(ss.map((s) => s.visitor)).size,
    sessions,
    pageviews,
    pagesPerSession: r(pageviews),
    bounceRate: r(ss.filter((s) => s.pageviews === 1 && s.custom === 0).length),
    sessionDurationMs: r(ss.reduce((a, s) => a + s.duration, 0)),
  };
}

// Breakdown and retention references (the rules of src/query/metrics.ts and retention.ts, in plain TypeScript).

export type RefRow = { value: string; share: number } & Record<string, number | string>;
const BUILT_IN = ['pageview', 'engagement', 'speed', 'error'];
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, x) => a + x, 0) / xs.length);

/** Per pageview matching q: time on page (next pageview of the session in range, else the largest timeMs
 *  of its engagement reports) and scroll depth (largest scrollDepth of its reports); null when unknown. */
export function refPageFacts(events: Sent[], q: RefScope) {
  const base = { ...q, filters: {} };
  const bySession = new Map<string, Sent[]>();
  for (const e of events)
    if ((e.name === 'pageview' || e.name === 'engagement') && matches(e, base))
      bySession.set(e.session, [...(bySession.get(e.session) ?? []), e]);
  const out: { e: Sent; timeMs: number | null; scroll: number | null }[] = [];
  for (const es of bySession.values()) {
    es.sort((a, b) => a.ts - b.ts);
    const pages: { e: Sent; reports: Sent[] }[] = [];
    for (const e of es) {
      if (e.name === 'pageview') pages.push({ e, reports: [] });
      else pages[pages.length - 1]?.reports.push(e);
    }
    pages.forEach((p, i) => {
      if (!matches(p.e, q)) return;
      const next = pages[i + 1];
      const reported = p.reports.length === 0 ? null : Math.max(...p.reports.map(timeMsOf));
      out.push({
        e: p.e,
        timeMs: next ? next.e.ts - p.e.ts : reported,
        scroll: p.reports.length === 0 ? null : Math.max(...p.reports.map(scrollOf)),
      });
    });
  }
  return out;
}

export function refBreakdown(
  events: Sent[],
  q: RefScope,
  value: (e: Sent) => string | null,
  metrics: string[],
): RefRow[] {
  const base = events.filter((e) => e.name !== 'engagement' && matches(e, q));
  const allVisitors = new Set(base.map((e) => e.visitor)).size;
  const sessionEvents = new Map<string, Sent[]>();
  for (const e of events) if (matches(e, q)) sessionEvents.set(e.session, [...(sessionEvents.get(e.session) ?? []), e]);
  const facts = refPageFacts(events, q);
  const { event: conversion, ...rest } = q.filters ?? {};
  const denominator =
    conversion === undefined
      ? []
      : events.filter((e) => e.name !== 'engagement' && matches(e, { ...q, filters: rest }));
  const values = [...new Set(base.map(value).filter((v): v is string => v !== null))];
  const rows = values.map((v) => {
    const mine = base.filter((e) => value(e) === v);
    const visitors = new Set(mine.map((e) => e.visitor)).size;
    const sessions = [...new Set(mine.map((e) => e.session))].map((id) => sessionEvents.get(id)!);
    const ts = (es: Sent[]) => es.map((e) => e.ts);
    const pages = facts.filter((f) => value(f.e) === v);
    const amounts = mine.map(amountOf).filter((a): a is number => a !== null);
    const computed: Record<string, number> = {
      visitors,
      pageviews: mine.filter((e) => e.name === 'pageview').length,
      events: mine.length,
      sessions: sessions.length,
      bounceRate: mean(
        sessions.map((es) =>
          es.filter((e) => e.name === 'pageview').length === 1 && !es.some((e) => !BUILT_IN.includes(e.name)) ? 1 : 0,
        ),
      ),
      sessionDurationMs: mean(sessions.map((es) => Math.max(...ts(es)) - Math.min(...ts(es)))),
      pagesPerSession: mean(sessions.map((es) => es.filter((e) => e.name === 'pageview').length)),
      timeOnPageMs: mean(pages.map((f) => f.timeMs).filter((x): x is number => x !== null)),
      scrollDepth: mean(pages.map((f) => f.scroll).filter((x): x is number => x !== null)),
      conversionRate:
        visitors / Math.max(1, new Set(denominator.filter((e) => value(e) === v).map((e) => e.visitor)).size),
      'sum:prop.amount': amounts.reduce((a, x) => a + x, 0),
      'avg:prop.amount': mean(amounts),
    };
    const row: Record<string, number | string> = { value: v };
    for (const m of metrics) row[m] = computed[m]!;
    row.share = allVisitors === 0 ? 0 : visitors / allVisitors;
    return row as RefRow;
  });
  const [a, b] = metrics;
  return rows.sort(
    (x, y) =>
      (y[a!] as number) - (x[a!] as number) ||
      (b ? (y[b] as number) - (x[b] as number) : 0) ||
      (x.value < y.value ? -1 : x.value > y.value ? 1 : 0),
  );
}

/** Cohorts as the retention route gives them: by the period of each visitor's first visit in q. */
export function refRetention(events: Sent[], q: RefScope, interval: 'week' | 'month') {
  const DAYMS = 86_400_000;
  const start = (ts: number) => {
    const d = new Date(ts);
    if (interval === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    const day = Math.floor(ts / DAYMS) * DAYMS;
    return day - ((new Date(day).getUTCDay() + 6) % 7) * DAYMS;
  };
  const between = (a: number, b: number) => {
    if (interval === 'week') return Math.round((b - a) / (7 * DAYMS));
    const x = new Date(a),
      y = new Date(b);
    return (y.getUTCFullYear() - x.getUTCFullYear()) * 12 + y.getUTCMonth() - x.getUTCMonth();
  };
  const active = new Map<string, Set<number>>();
  for (const e of events)
    if (e.name !== 'engagement' && matches(e, q))
      active.set(e.visitor, (active.get(e.visitor) ?? new Set()).add(start(e.ts)));
  const cohorts = new Map<number, Map<number, number>>();
  for (const periods of active.values()) {
    const first = Math.min(...periods);
    const c = cohorts.get(first) ?? new Map<number, number>();
    for (const p of periods) c.set(between(first, p), (c.get(between(first, p)) ?? 0) + 1);
    cohorts.set(first, c);
  }
  const last = start(q.to - 1);
  return [...cohorts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([cohort, c]) => ({
      cohort: new Date(cohort).toISOString(),
      visitors: c.get(0)!,
      periods: Array.from({ length: between(cohort, last) + 1 }, (_, offset) => ({
        offset,
        visitors: c.get(offset) ?? 0,
        share: (c.get(offset) ?? 0) / c.get(0)!,
      })),
    }));
}

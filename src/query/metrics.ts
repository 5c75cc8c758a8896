// The metric registry: every metric a read may ask for (DESIGN.md "Metric definitions"), its response
// member, and one SQL builder that computes a list of metrics per group key (a dimension value, a
// bucket, a project). Knows nothing about routes or paging; keys are fragments over events `e`.
import type { PendingQuery, Sql } from 'postgres';
import { HttpError } from '../errors.ts';
import type { Fragment } from './dimensions.ts';
import {
  baseWhereSql,
  filtersSql,
  sessionListSql,
  traitsListed,
  visitorKeySql,
  whereSql,
  type Scope,
} from './filters.ts';
import { sessionsSql } from './stats.ts';

export const builtInMetrics = [
  'visitors',
  'sessions',
  'pageviews',
  'events',
  'bounce_rate',
  'session_duration',
  'pages_per_session',
  'time_on_page',
  'scroll_depth',
  'conversion_rate',
] as const;
export type BuiltInMetric = (typeof builtInMetrics)[number];
export type Family = 'event' | 'session' | 'page' | 'conversion';
export type Metric = { name: string; member: string; family: Family; prop?: { fn: 'sum' | 'avg'; key: string } };

const builtIn: Record<BuiltInMetric, [member: string, family: Family]> = {
  visitors: ['visitors', 'event'],
  pageviews: ['pageviews', 'event'],
  events: ['events', 'event'],
  sessions: ['sessions', 'session'],
  bounce_rate: ['bounceRate', 'session'],
  session_duration: ['sessionDurationMs', 'session'],
  pages_per_session: ['pagesPerSession', 'session'],
  time_on_page: ['timeOnPageMs', 'page'],
  scroll_depth: ['scrollDepth', 'page'],
  conversion_rate: ['conversionRate', 'conversion'],
};
const PROP_METRIC = /^(sum|avg):prop\.([A-Za-z0-9_.$-]{1,64})$/;
export const metricNamesHint = `${builtInMetrics.join(', ')}, sum:prop.<key> or avg:prop.<key>`;

/** A metric by its public name; `sum:prop.<key>`/`avg:prop.<key>` keep their name as the member. */
export function parseMetric(name: string): Metric | null {
  if (Object.hasOwn(builtIn, name)) {
    const [member, family] = builtIn[name as BuiltInMetric];
    return { name, member, family };
  }
  const m = PROP_METRIC.exec(name);
  return m ? { name, member: name, family: 'event', prop: { fn: m[1] as 'sum' | 'avg', key: m[2]! } } : null;
}

export const isMetric = (name: string) => parseMetric(name) !== null;

/** conversion_rate needs an include filter[event]; the 400 names `field` (query.metric or query.metrics). */
export function checkConversion(metrics: Metric[], scope: Pick<Scope, 'filters'>, field: string): void {
  if (!metrics.some((m) => m.family === 'conversion') || conversionEvent(scope) !== null) return;
  throw new HttpError('VALIDATION_FAILED', `${field}: conversion_rate needs filter[event]=<event name>`, [
    { field, message: 'conversion_rate needs filter[event]=<event name> (an include filter)' },
  ]);
}

const conversionEvent = (scope: Pick<Scope, 'filters'>) =>
  scope.filters.find((f) => f.dimension === 'event' && !f.exclude) ?? null;

export type GroupRow<K> = { key: K; visitors: number; all_visitors: number; values: number[] };

/**
 * One row per non-null key: `visitors` (always), `values` in the order of `metrics`, and `all_visitors`
 * (distinct visitors of the whole scope, for shares). Event metrics count events that are not engagement
 * reports; a session counts for every key it has such an event with; page metrics go by the key of the
 * pageview; conversion_rate divides the key's visitors by its visitors without the event filter.
 * A mean over nothing is 0, as in the statistic block.
 */
export function groupedSql<K>(sql: Sql, scope: Scope, key: Fragment, metrics: Metric[]): PendingQuery<GroupRow<K>[]> {
  const families = new Set(metrics.map((m) => m.family));
  const needsProps = metrics.some((m) => m.prop);
  const column = (m: Metric, i: number): Fragment => {
    const name = sql(`m${i}`);
    if (m.name === 'visitors') return sql`g.visitors::float8`;
    if (m.family === 'event') return sql`g.${name}`;
    if (m.family === 'session') return sql`coalesce(sg.${name}, 0)::float8`;
    if (m.family === 'page') return sql`coalesce(pg.${name}, 0)::float8`;
    return sql`case when cg.visitors > 0 then g.visitors::float8 / cg.visitors else 0 end`;
  };
  const eventColumns = metrics.map((m, i) =>
    m.family === 'event' && m.name !== 'visitors' ? sql`, ${eventAgg(sql, m)} as ${sql(`m${i}`)}` : sql``,
  );
  const sessionColumns = metrics.map((m, i) =>
    m.family === 'session' ? sql`, ${sessionAgg(sql, m)} as ${sql(`m${i}`)}` : sql``,
  );
  const pageColumns = metrics.map((m, i) =>
    m.family === 'page' ? sql`, ${pageAgg(sql, m)} as ${sql(`m${i}`)}` : sql``,
  );
  const values = metrics.map((m, i) => column(m, i)).reduce((a, b) => sql`${a}, ${b}`);
  const visitor = visitorKeySql(sql, scope);
  // Distinct visitors per key as the count of (key, visitor) pairs, grouped first: hash aggregates, where
  // count(distinct) sorts every event of every key (1.1–1.3 s against 0.38–0.44 s for the 266k events of
  // a day at 1M, 0.27 s of it the scan). The event counts ride along as counts per pair, summed. A prop's
  // sum or mean keeps the one-level form: float8 sums in another order may differ in the last digits.
  const counted = metrics.flatMap((m, i) =>
    m.family === 'event' && m.name !== 'visitors' ? [[m, sql(`m${i}`)] as const] : [],
  );
  const g = needsProps
    ? sql`
      select e.k, count(distinct ${visitor})::int as visitors ${joinAll(sql, eventColumns)}
      from base e where e.k is not null group by e.k`
    : sql`
      select v.k, count(*)::int as visitors ${joinAll(
        sql,
        counted.map(([, name]) => sql`, sum(v.${name})::float8 as ${name}`),
      )}
      from (
        select e.k, ${visitor} as visitor ${joinAll(
          sql,
          counted.map(([m, name]) => sql`, ${eventCount(sql, m)} as ${name}`),
        )}
        from base e where e.k is not null group by 1, 2
      ) v
      group by v.k`;
  return sql<GroupRow<K>[]>`
    with base as (
      select ${key} as k, e.project_id, e.visitor_id, e.session_id, e.name ${needsProps ? sql`, e.props` : sql``}
      from events e where ${whereSql(sql, scope)} and e.name <> 'engagement'
    ), g as (${g})
    ${
      families.has('session')
        ? sql`, sg as materialized (
      select p.k ${joinAll(sql, sessionColumns)}
      from (select distinct k, project_id, session_id from base where k is not null) p
      join (${sessionsSql(sql, scope)}) s on s.project_id = p.project_id and s.session_id = p.session_id
      group by p.k
    )`
        : sql``
    }
    ${
      families.has('page')
        ? sql`, pg as materialized (
      select e.k ${joinAll(sql, pageColumns)} from (${pageFactsSql(sql, scope, key)}) e where e.k is not null group by e.k
    )`
        : sql``
    }
    ${
      families.has('conversion')
        ? sql`, cg as materialized (
      select ${key} as k, count(distinct ${visitorKeySql(sql, scope)})::int as visitors
      from events e where ${whereSql(sql, { ...scope, filters: scope.filters.filter((f) => f !== conversionEvent(scope)) })}
        and e.name <> 'engagement'
      group by 1
    )`
        : sql``
    }
    select g.k as key, g.visitors, (select count(*) from (select distinct ${visitor} from base e) a)::int as all_visitors,
      array[${values}]::float8[] as values
    from g
    ${families.has('session') ? sql`left join sg on sg.k = g.k` : sql``}
    ${families.has('page') ? sql`left join pg on pg.k = g.k` : sql``}
    ${families.has('conversion') ? sql`left join cg on cg.k = g.k` : sql``}`;
}

const joinAll = (sql: Sql, parts: Fragment[]) => parts.reduce((a, b) => sql`${a}${b}`, sql``);

/** A numeric prop as float8, null where it is absent, not a JSON number, or past ingest's bound (±1e15,
 *  MAX_PROP_NUMBER: a value stored before there was one): so no sum or average can leave float8. */
const numericProp = (sql: Sql, key: string) =>
  sql`(case when jsonb_typeof(e.props -> ${key}) = 'number' and abs((e.props ->> ${key})::float8) <= 1e15 then (e.props ->> ${key})::float8 end)`;

function eventAgg(sql: Sql, m: Metric): Fragment {
  if (m.prop)
    return m.prop.fn === 'sum'
      ? sql`coalesce(sum(${numericProp(sql, m.prop.key)}), 0)::float8`
      : sql`coalesce(avg(${numericProp(sql, m.prop.key)}), 0)::float8`;
  if (m.name === 'pageviews') return sql`(count(*) filter (where e.name = 'pageview'))::float8`;
  return sql`count(*)::float8`; // events
}

/** An event metric without a prop (pageviews, events) as a count, summed by groupedSql's pairs. */
const eventCount = (sql: Sql, m: Metric): Fragment =>
  m.name === 'pageviews' ? sql`count(*) filter (where e.name = 'pageview')` : sql`count(*)`;

function sessionAgg(sql: Sql, m: Metric): Fragment {
  switch (m.name) {
    case 'sessions':
      return sql`count(*)::float8`;
    case 'bounce_rate':
      return sql`avg((s.pageviews = 1 and s.custom = 0)::int)::float8`;
    case 'session_duration':
      return sql`avg(s.duration_ms)::float8`;
    default:
      return sql`(sum(s.pageviews)::float8 / count(*))`; // pages_per_session
  }
}

const pageAgg = (sql: Sql, m: Metric): Fragment =>
  m.name === 'time_on_page' ? sql`avg(e.time_on_page_ms)::float8` : sql`avg(e.scroll_depth)::float8`;

/**
 * One row per pageview in scope: its key `k`, `time_on_page_ms` and `scroll_depth`. The engagement
 * reports after a pageview and before the next pageview of its session belong to it. Time on page is
 * the time to the next pageview of the session (within the range), or for the session's last pageview
 * the largest `timeMs` of its engagement reports (the SDK's count is cumulative); null without either.
 * Scroll depth is the largest `scrollDepth` of its reports, null without one. Sequencing ignores the
 * dimension filters (the next page may be any page); the filters then pick the pageviews.
 */
export function pageFactsSql(sql: Sql, scope: Scope, key: Fragment): Fragment {
  // Window functions only (no self-join): one scan of the range's pageviews and reports in session order.
  // The scan keeps only what the windows need: a pageview's key and filters, and a report's two numbers,
  // are taken from the row there (the filters are the pageview's own), so the two sorts carry narrow rows,
  // not whole events with their props (a fifth less time over a day of 100k pageviews and reports).
  return sql`
    select e.k, e.scroll_depth,
      case when e.next_ts is not null then extract(epoch from e.next_ts - e.ts) * 1000 else e.reported_ms end as time_on_page_ms
    from (
      select e.*,
        max(e.report_ms) over page as reported_ms,
        max(e.report_scroll) over page as scroll_depth,
        min(e.ts) filter (where e.name = 'pageview') over (partition by e.project_id, e.session_id order by e.pv_idx
          range between 1 following and 1 following) as next_ts
      from (
        select e.project_id, e.session_id, e.ts, e.name,
          case when e.name = 'pageview' then ${key} end as k,
          case when e.name = 'pageview' then ${filtersSql(sql, scope.filters, traitsListed(scope))} end as kept,
          case when e.name = 'engagement' then ${numericProp(sql, 'timeMs')} end as report_ms,
          case when e.name = 'engagement' then ${numericProp(sql, 'scrollDepth')} end as report_scroll,
          count(*) filter (where e.name = 'pageview') over (
            partition by e.project_id, e.session_id order by e.ts, e.id rows between unbounded preceding and current row) as pv_idx
        from events e where ${baseWhereSql(sql, scope)} ${sessionListSql(sql, scope)} and e.name in ('pageview', 'engagement')
      ) e
      window page as (partition by e.project_id, e.session_id, e.pv_idx)
    ) e
    where e.name = 'pageview' and e.kept`;
}

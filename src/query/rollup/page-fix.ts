// The split-session correction of the page rollups, per page: sessions that touched the page and page
// facts, recomputed over the range for the sessions listed as split, minus what their days counted.
// Reads the CTEs of split.ts (split_ids, split_days, split_whole); adds page_fix (path, sessions, bounces, duration_ms,
// session_pageviews, time_sum, time_count, scroll_sum, scroll_count).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, type Scope } from '../filters.ts';

/** Page facts (path, name, ts, reported_ms, scroll_depth, next_ts, and the column `carry` if given) of the
 *  events of `rel` (pageEventColumns), sequenced within `part`, as build_rollup_page_days.sql sequences them. */
export function pageFactsSql(sql: Sql, part: Fragment, rel: string, carry?: string): Fragment {
  return sql`
    select path, name, ts, ${carry ? sql`${sql(carry)},` : sql``}
      max(time_ms) over pg as reported_ms, max(scroll) over pg as scroll_depth,
      min(ts) filter (where name = 'pageview') over (partition by ${part} order by pv_idx range between 1 following and 1 following) as next_ts
    from (
      select m.*, count(*) filter (where name = 'pageview') over (partition by ${part} order by ts, id rows between unbounded preceding and current row) as pv_idx
      from ${sql(rel)} m where name in ('pageview', 'engagement')
    ) m
    window pg as (partition by ${part}, pv_idx)`;
}

/** A page fact's time on page: to the next pageview, else the engagement's report. */
export const timeOnPageSql = (sql: Sql): Fragment =>
  sql`case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end`;

/** The columns of events aliased `e` the page facts read. */
export const pageEventColumns = (sql: Sql): Fragment => sql`
  e.project_id, e.session_id, (e.ts at time zone 'UTC')::date as day, e.id, e.ts, e.name, e.path,
  case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
  case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll`;

export function pageFixCtes(sql: Sql, scope: Scope): Fragment {
  const facts = (part: Fragment) => pageFactsSql(sql, part, 'mev');
  const time = timeOnPageSql(sql);
  return sql`
    mev as materialized (
      select ${pageEventColumns(sql)}
      from events e join split_ids i on i.project_id = e.project_id and i.session_id = e.session_id
      where ${baseWhereSql(sql, scope)}
    ), md as (
      select session_id, day, first_ts as f, last_ts as l, pageviews as pv, custom, active from split_days
    ), mw as (
      select session_id, first_ts as f, last_ts as l, pageviews as pv, custom, active from split_whole
    ), sess_fix as (
      select path, sum(n) as sessions, sum(b) as bounces, sum(d) as duration_ms, sum(pv) as session_pageviews from (
        select t.path, 1 as n, (w.pv = 1 and w.custom = 0)::int as b, extract(epoch from w.l - w.f) * 1000 as d, w.pv
        from (select distinct session_id, path from mev where name <> 'engagement' and path is not null) t join mw w using (session_id)
        where w.active > 0
        union all
        select t.path, -1, -((d.pv = 1 and d.custom = 0)::int), -(extract(epoch from d.l - d.f) * 1000), -d.pv
        from (select distinct session_id, day, path from mev where name <> 'engagement' and path is not null) t join md d using (session_id, day)
        where d.active > 0
      ) x group by 1
    ), facts_fix as (
      select path, sum(ts_) as time_sum, sum(tc) as time_count, sum(ss) as scroll_sum, sum(sc) as scroll_count from (
        select path, coalesce(${time}, 0) as ts_, (${time} is not null)::int as tc, coalesce(scroll_depth, 0) as ss, (scroll_depth is not null)::int as sc
        from (${facts(sql`session_id`)}) w where name = 'pageview' and path is not null
        union all
        select path, -coalesce(${time}, 0), -((${time} is not null)::int), -coalesce(scroll_depth, 0), -((scroll_depth is not null)::int)
        from (${facts(sql`session_id, day`)}) d where name = 'pageview' and path is not null
      ) x group by 1
    ), page_fix as (
      select coalesce(s.path, f.path) as path, s.sessions, s.bounces, s.duration_ms, s.session_pageviews,
        f.time_sum, f.time_count, f.scroll_sum, f.scroll_count
      from sess_fix s full join facts_fix f on f.path = s.path
    )`;
}

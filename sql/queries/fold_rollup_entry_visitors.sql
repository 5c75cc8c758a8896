-- The visitor sets of the entry and exit rows of the pages a fold touched (fold_rollup_days.sql, earlier
-- in the same transaction), counted again from the day's listed sessions; a row left without sessions is
-- deleted, as a build would not write it.
-- $1 project_id, $2 day (date), $3 pages (text[])
-- returns rows (rows rewritten), deleted
with sels as (select generate_series(0, 11)::smallint as sel),
v as (
  select s.sel, x.kind, x.page, array_agg(distinct e.visitor_hash order by e.visitor_hash) as visitors
  from rollup_day_entry_sessions e
  cross join lateral (values (0::smallint, e.entry_page), (1::smallint, e.exit_page)) as x(kind, page)
  join sels s on (e.sel_mask::int >> s.sel) & 1 = 1
  where e.project_id = $1 and e.day = $2::date and x.page = any($3::text[])
  group by 1, 2, 3
),
u as (
  update rollup_day_entry r set visitors = v.visitors from v
  where r.project_id = $1 and r.day = $2::date and r.sel = v.sel and r.kind = v.kind and r.page = v.page
    and r.sessions > 0
  returning 1
),
d as (
  delete from rollup_day_entry r
  where r.project_id = $1 and r.day = $2::date and r.page = any($3::text[]) and r.sessions = 0
  returning 1
)
select (select count(*) from u)::int as rows, (select count(*) from d)::int as deleted

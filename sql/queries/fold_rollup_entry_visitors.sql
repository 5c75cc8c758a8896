-- The visitor sets of the entry and exit rows a fold touched (fold_rollup_entry_days.sql, earlier in the
-- same transaction), counted again from the day's listed sessions; a row left without sessions is deleted,
-- as a build would not write it.
-- $1 project_id, $2 day (date), $3 selections (smallint[]), $4 kinds (smallint[]), $5 pages (text[])
-- returns rows (rows rewritten), deleted
with k as (select distinct * from unnest($3::smallint[], $4::smallint[], $5::text[]) k(sel, kind, page)),
listed as (
  select s.visitor_hash, s.sel_mask, x.kind, x.page from rollup_day_entry_sessions s
  cross join lateral (values (0::smallint, s.entry_page), (1::smallint, s.exit_page)) as x(kind, page)
  where s.project_id = $1 and s.day = $2::date and x.page in (select page from k)
),
v as (
  select k.sel, k.kind, k.page, array_agg(distinct l.visitor_hash order by l.visitor_hash) as visitors
  from k join listed l on l.kind = k.kind and l.page = k.page and (l.sel_mask::int >> k.sel) & 1 = 1
  group by 1, 2, 3
),
u as (
  update rollup_day_entry r set visitors = v.visitors from v
  where r.project_id = $1 and r.day = $2::date and r.sel = v.sel and r.kind = v.kind and r.page = v.page
  returning 1
),
d as (
  delete from rollup_day_entry r using k
  where r.project_id = $1 and r.day = $2::date and r.sel = k.sel and r.kind = k.kind and r.page = k.page and r.sessions = 0
  returning 1
)
select (select count(*) from u)::int as rows, (select count(*) from d)::int as deleted

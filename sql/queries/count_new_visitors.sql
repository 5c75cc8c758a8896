-- Distinct visitors of one project on some UTC days ($2) that none of other days ($3) had, under selection
-- $4, from the day rollups: what the recent days add to a kept count over the settled ones
-- (src/query/rollup/visitors.ts). Each is probed through rollup_day_visitors_hash (0063).
-- $1 project_id, $2 the days counted (date[]), $3 the days already counted (date[]), $4 sel (smallint)
-- returns visitors
select count(*)::int as visitors from (
  select distinct visitor_hash as h from rollup_day_visitors
  where project_id = $1 and day = any($2::date[]) and sel_mask & (1 << $4::int) <> 0
) w
where not exists (
  select 1 from rollup_day_visitors r
  where r.project_id = $1 and r.visitor_hash = w.h and r.day = any($3::date[]) and r.sel_mask & (1 << $4::int) <> 0)

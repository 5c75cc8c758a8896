-- Distinct visitors of one project over some UTC days under selection $3, from the day rollups, and of
-- those days before $4 alone, in one pass (src/query/rollup/visitors.ts keeps both counts per range).
-- $1 project_id, $2 the days (date[]), $3 sel (smallint), $4 the first day not counted in `settled` (date)
-- returns visitors, settled
select count(*)::int as visitors, count(*) filter (where old)::int as settled from (
  select visitor_hash, bool_or(day < $4::date) as old from rollup_day_visitors
  where project_id = $1 and day = any($2::date[]) and sel_mask & (1 << $3::int) <> 0
  group by 1
) x

-- Distinct visitors of one project over some UTC days under selection $3, from the day rollups
-- (src/query/rollup/visitors.ts keeps the count per range).
-- $1 project_id, $2 the days (date[]), $3 sel (smallint)
-- returns visitors
select count(*)::int as visitors from (
  select visitor_hash from rollup_day_visitors
  where project_id = $1 and day = any($2::date[]) and sel_mask & (1 << $3::int) <> 0
  group by 1
) x

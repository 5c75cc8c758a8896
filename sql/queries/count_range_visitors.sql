-- Distinct visitors of one project over the UTC days [$2, $3) under selection $4, from the day rollups
-- (src/query/rollup/visitors.ts keeps the count per range).
-- $1 project_id, $2 first day (date), $3 day after the last (date), $4 sel (smallint)
-- returns visitors
select count(*)::int as visitors from (
  select visitor_hash from rollup_day_visitors
  where project_id = $1 and day >= $2::date and day < $3::date and sel_mask & (1 << $4::int) <> 0
  group by 1
) x

-- Distinct visitors of one project over the UTC days [$2, $3) under selection $4, from the day
-- rollups, reused from rollup_range_visitors while no day of the range has been rebuilt since.
-- $1 project_id, $2 first day (date), $3 day after the last (date), $4 sel (smallint)
-- returns visitors
with cur as (
  select coalesce(max(build_seq), 0) as seq from rollup_days where project_id = $1 and day >= $2::date and day < $3::date
), hit as (
  select c.visitors from rollup_range_visitors c, cur
  where c.project_id = $1 and c.from_day = $2::date and c.to_day = $3::date and c.sel = $4::smallint and c.build_seq = cur.seq
), counted as (
  select count(*)::int as visitors from (
    select visitor_hash from rollup_day_visitors
    where project_id = $1 and day >= $2::date and day < $3::date and sel_mask & (1 << $4::int) <> 0
      and not exists (select 1 from hit)
    group by 1
  ) x
), saved as (
  insert into rollup_range_visitors (project_id, from_day, to_day, sel, build_seq, visitors)
  select $1, $2::date, $3::date, $4::smallint, cur.seq, counted.visitors from cur, counted where not exists (select 1 from hit)
  on conflict (project_id, from_day, to_day, sel) do update set build_seq = excluded.build_seq, visitors = excluded.visitors
)
select coalesce((select visitors from hit), (select visitors from counted)) as visitors

-- The UTC days in [$2, $3) of each project in $1 whose rollups are missing or marked stale.
-- $1 project ids (text[]), $2 first day (date), $3 day after the last (date)
-- returns project_id, day ('YYYY-MM-DD'), in order
select p.id as project_id, to_char(d, 'YYYY-MM-DD') as day
from unnest($1::text[]) p(id) cross join generate_series($2::date, $3::date - 1, interval '1 day') d
where not exists (select 1 from rollup_days r where r.project_id = p.id and r.day = d::date)
   or exists (select 1 from rollup_stale_days s where s.project_id = p.id and s.day = d::date)
order by 1, 2

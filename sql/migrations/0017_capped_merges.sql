-- Bounds that keep one project's rows from growing or summing past what PostgreSQL holds. A visitor's
-- traits, groups and experiments merge over time (upsert_visitors.sql): merged without a
-- bound, one visitor's keys could grow past jsonb's limit and fail every checkpoint of its project. The
-- merge keeps every key of the newer object, then the older object's other keys in key order while there
-- is room (mergeCapped in src/db/flush-rows.ts does the same in memory). Rows already past the caps are cut.
create function loupe_merge_capped(old jsonb, new jsonb, max_keys int) returns jsonb
language sql immutable parallel safe as $$
  select case
    when new = '{}'::jsonb then old
    when (select count(*) from jsonb_object_keys(old || new)) <= max_keys then old || new
    else (
      select coalesce(jsonb_object_agg(key, value), '{}'::jsonb) from (
        select key, value from (
          (select key, value, 0 as newer from jsonb_each(new) order by key limit max_keys)
          union all
          select key, value, 1 from jsonb_each(old) where not new ? key
        ) as kv
        order by newer, key
        limit max_keys
      ) as kept
    )
  end
$$;

update visitors set
  traits = loupe_merge_capped('{}'::jsonb, traits, 50),
  groups = loupe_merge_capped('{}'::jsonb, groups, 20),
  experiments = loupe_merge_capped('{}'::jsonb, experiments, 50)
where (select count(*) from jsonb_object_keys(traits)) > 50
   or (select count(*) from jsonb_object_keys(groups)) > 20
   or (select count(*) from jsonb_object_keys(experiments)) > 50;

-- Page rollups built from numbers past ingest's bound (1e15, before there was one) are rebuilt: the build
-- now counts such a number as absent, so no sum over the days can overflow float8.
insert into rollup_stale_days (project_id, day)
select distinct project_id, day from rollup_day_pages where abs(time_sum) > 1e15 or abs(scroll_sum) > 1e15
on conflict do nothing;

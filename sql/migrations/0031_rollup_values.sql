-- Day rollups of the acquisition dimensions events carry (referrer, referrer_domain, channel, utm_*), for
-- breakdowns by one of them without filters: per day, dimension, value and traffic/environment class
-- (0007's bits), the non-engagement events and pageviews and the distinct visitors as an array of the
-- 64-bit hashes rollup_day_visitors uses. Kept by the writers as the prop rows are (src/db/rollup-apply.ts);
-- read by src/query/rollup/values.ts.
create table rollup_day_values (
  project_id text not null,
  day        date not null,
  dim        text not null,
  value      text,
  tm         smallint not null,
  em         smallint not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null
);
create unique index rollup_day_values_row on rollup_day_values (project_id, dim, day, value, tm, em) nulls not distinct;

-- Every day with events is rebuilt by the writer, which fills this table too.
insert into rollup_pending_days (project_id, day)
select distinct project_id, (ts at time zone 'UTC')::date from events
on conflict (project_id, day) do nothing;

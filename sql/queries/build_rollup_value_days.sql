-- Builds the acquisition-dimension rollups of one project's UTC days [$2, $3) (src/db/rollup-apply.ts
-- rebuildDay, in its transaction): per day, dimension, value and class, the non-engagement events and
-- pageviews and the distinct visitor hashes. Events of unclaimed journal rows are left to their checkpoint.
-- $1 project_id, $2 first day (date), $3 day after the last (date), $4 ids of events left out (text[])
-- returns rows (rows inserted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.name,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    hashtextextended(e.visitor_id, 0) as h, e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign,
    e.utm_term, e.utm_content
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    and e.name <> 'engagement' and not exists (select 1 from unnest($4::text[]) x(id) where x.id = e.id)
),
i_rows as (
  insert into rollup_day_values (project_id, day, dim, value, tm, em, pageviews, events, visitors)
  select $1, ev.day, d.dim, d.value, ev.tm, ev.em, count(*) filter (where ev.name = 'pageview'), count(*), array_agg(distinct ev.h)
  from ev cross join lateral (values ('referrer', ev.referrer), ('referrer_domain', ev.referrer_domain), ('channel', ev.channel),
    ('utm_source', ev.utm_source), ('utm_medium', ev.utm_medium), ('utm_campaign', ev.utm_campaign), ('utm_term', ev.utm_term),
    ('utm_content', ev.utm_content)) as d(dim, value)
  group by ev.day, d.dim, d.value, ev.tm, ev.em
  returning 1
)
select (select count(*) from i_rows)::int as rows

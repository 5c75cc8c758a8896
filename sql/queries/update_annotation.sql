-- Changes only the fields sent. title, date and kind keep the stored value when null; end_date, note and
-- url have a "sent" flag so that null can clear them. The end-after-start rule is checked against the
-- row as it will be (a sent value, else the stored one), so a bad change updates nothing.
-- $1 project_id, $2 id, $3 title, $4 date, $5 end_date sent, $6 end_date, $7 kind,
-- $8 note sent, $9 note, $10 url sent, $11 url
-- returns found (the annotation exists), then project_id, id, title, date, end_date, kind, note, url,
-- created_at, updated_at: null when nothing changed (not found, or end before start)
with changed as (
  update annotations set
    title      = coalesce($3::text, title),
    date       = coalesce($4::timestamptz, date),
    end_date   = case when $5::boolean then $6::timestamptz else end_date end,
    kind       = coalesce($7::text, kind),
    note       = case when $8::boolean then $9::text else note end,
    url        = case when $10::boolean then $11::text else url end,
    updated_at = now()
  where project_id = $1 and id = $2
    -- a null end (none, or cleared) always passes
    and coalesce((case when $5::boolean then $6::timestamptz else end_date end) >= coalesce($4::timestamptz, date), true)
  returning project_id, id, title, date, end_date, kind, note, url, created_at, updated_at
)
select exists (select 1 from annotations where project_id = $1 and id = $2) as found, changed.*
from (values (1)) as one
left join changed on true

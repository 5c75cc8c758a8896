-- One page of a project's annotations that touch a range: any part of [date, end_date] in [from, to).
-- A null bound is open. Keyset paging on (date, id), the list's order.
-- $1 project_id, $2 from or null, $3 to (exclusive) or null, $4 after date or null, $5 after id or null, $6 limit
-- returns project_id, id, title, date, end_date, kind, note, url, created_at, updated_at
select project_id, id, title, date, end_date, kind, note, url, created_at, updated_at
from annotations
where project_id = $1
  and ($3::timestamptz is null or date < $3::timestamptz)
  and ($2::timestamptz is null or coalesce(end_date, date) >= $2::timestamptz)
  and ($4::timestamptz is null or (date, id) > ($4::timestamptz, $5::text))
order by date, id
limit $6::integer

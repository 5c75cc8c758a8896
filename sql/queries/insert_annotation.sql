-- Creates an annotation.
-- $1 project_id, $2 id, $3 title, $4 date, $5 end_date or null, $6 kind, $7 note or null, $8 url or null
-- returns project_id, id, title, date, end_date, kind, note, url, created_at, updated_at
insert into annotations (project_id, id, title, date, end_date, kind, note, url)
values ($1, $2, $3, $4::timestamptz, $5::timestamptz, $6, $7, $8)
returning project_id, id, title, date, end_date, kind, note, url, created_at, updated_at

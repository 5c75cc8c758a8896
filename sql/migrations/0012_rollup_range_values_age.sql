-- When each kept range value was computed, so the retention job can drop the ones nobody has read for a
-- week: a value is kept per (range, selection, question), and every new day of a dashboard's "last 30
-- days" is a new range, so without this the table only grew. A dropped value is computed again by the
-- next read that needs it.
alter table rollup_range_values add column computed_at timestamptz not null default now();

-- Sessions written before 0006 (and by the seed until now) have entry and exit pages without the times
-- of those pageviews. The upsert used to stand in started_at and last_activity for them on every
-- update; this gives the old rows those values once, so the upsert compares entry_at and exit_at only.
update sessions
set entry_at = coalesce(entry_at, case when entry_page is not null then started_at end),
    exit_at  = coalesce(exit_at, case when exit_page is not null then last_activity end)
where (entry_at is null and entry_page is not null) or (exit_at is null and exit_page is not null);

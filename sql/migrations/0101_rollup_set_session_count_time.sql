-- When a day's session facts per set of values were counted and how long the count took, so the builder
-- counts today's again as their list of folded events grows (list_rollup_set_session_days_to_build.sql),
-- at most once every ten counts' lengths. Today's were counted only by its build: at 10M events a day's
-- folds list its events all day, reads under filters add each listed event's session, and past 20,000
-- (loupe_patch_limit) today under a filter was read from events until midnight.
alter table rollup_set_session_days
  add column counted_at timestamptz not null default now(),
  add column count_ms integer;

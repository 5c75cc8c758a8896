-- Today is built too, and rebuilt as marks of the events written since add up; its build grows with the
-- day, so the builder keeps a rebuild of today to a small share of its time: it waits at least twenty
-- times the last build's length (`build_ms`, written by the background builder after the build; null for
-- days built by ensureRollups, which builds several days in one transaction) before it builds today again
-- (list_rollup_days_to_build.sql).
alter table rollup_days add column build_ms integer;

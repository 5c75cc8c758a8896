-- A built day whose marks are all of single events and stretched sessions is not rebuilt: the builder folds
-- the marked events into its rows (src/query/rollup/fold.ts), a cost that grows with the sessions they
-- touch, not with the day. Today is folded as its events arrive; each fold waits twenty times the last
-- one's length after it (list_rollup_days_to_build.sql), as a rebuild does after a build.
alter table rollup_days add column folded_at timestamptz, add column fold_ms integer;

-- The first statement of a fold (src/query/rollup/fold.ts): the day's marked events as the fold takes them
-- (0086 loupe_fold_marks: the page columns, what the day's rows hold of each one's session, whether the
-- session is merged), kept for the rest of the fold's transaction. fold_rollup_days.sql,
-- fold_rollup_page_days.sql and fold_rollup_session_state.sql each read them; each computed them itself
-- before, a marked event looked up in events and its session's held row three times a fold (a third of
-- the fold's time at 8,000 marks). The fold is one repeatable-read transaction and only its last
-- statement writes the held rows, so every statement saw the same set.
-- $1 project_id, $2 day (date)
-- returns nothing
create temp table rollup_fold_marks on commit drop as
select * from loupe_fold_marks($1, $2::date)

-- When an issue's first and last release were seen: firstRelease and lastRelease follow the earliest and
-- the latest occurrence that carried a release, whatever order occurrences arrive in and however they were
-- grouped into flushes. Issues recorded before get the times their releases were kept by.
alter table issues add column first_release_at timestamptz, add column last_release_at timestamptz;
update issues set first_release_at = first_seen where first_release is not null;
update issues set last_release_at = last_seen where last_release is not null;

-- The visitors marked internal, for a project actor that starts: their later events are stored as internal
-- too. A team's browsers among a site's audience, so the index is partial and small, and the read at an
-- actor's start does not walk the project's visitors. It holds no column a checkpoint changes (last_seen
-- would be one), so the visitors' updates stay HOT (sql/README.md).
create index visitors_internal on visitors (project_id) where is_internal;

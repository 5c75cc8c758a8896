-- Filters on `prop:<key>` and `group:<type>` select events by a member of their props or groups, which no
-- rollup carries (a prop's values are the site's own: a plan, a search term, an order id). Without an index
-- such a read grouped every event of its range: at 1M events over 30 days 0.3–0.5 s, and linear in the
-- range's events. A read now finds the matching events here (filters.ts adds the containment beside the exact `->>`
-- test), so it costs the events that match, not the range's.
-- The indexed value is `{project_id: props}`: jsonb_path_ops hashes each member with its whole path, so one
-- entry is one project's key and value, and a value common to many projects costs a read its own events
-- alone (GIN cannot lead with a plain column as the other indexes do). jsonb_set, immutable, builds it;
-- jsonb_build_object is only stable. Partial: events without props or groups (every pageview of a plain
-- site) cost ingest nothing here.
create index events_props on events using gin ((jsonb_set('{}'::jsonb, array[project_id], props)) jsonb_path_ops)
  where props <> '{}'::jsonb;
create index events_groups on events using gin ((jsonb_set('{}'::jsonb, array[project_id], groups)) jsonb_path_ops)
  where groups <> '{}'::jsonb;

-- A filter on `trait:<key>` selects the events of the visitors whose current traits hold the value. Events
-- carry no per-visitor index (one more btree on every ingested event), so such a read grouped every event
-- of its range: about 1 s at 1M events over 30 days, and linear in the range. A read now finds the visitors
-- here, their sessions through sessions_project_visitor, and the sessions' events through
-- events_project_session (filters.ts), so it costs the matching visitors' events, not the range's.
-- As 0095 over events: the indexed value is `{project_id: traits}`, one entry a project's key and value;
-- partial, so the visitors without traits (most of a site's) cost the checkpoint nothing here.
create index visitors_traits on visitors using gin ((jsonb_set('{}'::jsonb, array[project_id], traits)) jsonb_path_ops)
  where traits <> '{}'::jsonb;

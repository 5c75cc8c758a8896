-- Sessions and visitors are folded from the actors' memory at checkpoints, not in every flush; a journal
-- row, written in the flush's own transaction, keeps each flush's deltas until a checkpoint has applied
-- them, so a process that dies in between loses nothing (see sql/README.md, "The write path").

create table fold_journal (
  id         bigint generated always as identity primary key,
  project_id text not null,
  -- The process whose actor holds these deltas in memory and will apply them.
  owner      text not null,
  -- {"ids": [event ids], "from", "to" (their ts range), "extras": [visitor facts events do not keep]}:
  -- what recovery needs to recompute the flush's deltas from its stored events. Read back only after a
  -- crash: stored uncompressed, so writing it costs no compression.
  body       text not null
);
alter table fold_journal alter column body set storage external;
create index fold_journal_owner on fold_journal (owner);

-- Each process's heartbeat: the journal rows of an owner whose heartbeat has stopped are applied by another.
create table fold_owners (
  owner   text primary key,
  seen_at timestamptz not null default now()
);

-- When a session's entry and exit pageviews happened, so that adding deltas in any order (flushes,
-- checkpoints, a recovery) keeps the earliest and the latest pageview. Rows written before this have none:
-- the upsert then takes started_at / last_activity for them, as the rule before it did.
alter table sessions add column entry_at timestamptz, add column exit_at timestamptz;

-- Checkpoints add to the same sessions and visitors many times in their life. With free space left in each
-- page, an update that changes no indexed column is a HOT update: the new row version stays on its page
-- and no index entry is written. New pages keep 30% free.
alter table sessions set (fillfactor = 70);
alter table visitors set (fillfactor = 70);
alter table issues set (fillfactor = 70);

// Sessions, visitors and the hourly ingest counters are written at checkpoints, not in every flush: a
// flush journals itself in its own transaction, the actor keeps its deltas in memory, and a checkpoint
// applies them merged (one upsert a session and visitor, one a counters hour) while deleting their
// journal rows. Rows left by a process that died are applied by recover(), which recomputes the deltas
// from the flush's stored events plus the few visitor facts events do not keep, and the journaled counts.
// Either way a journal row is applied exactly once: whoever deletes it applies it.
import type { Sql, TransactionSql } from 'postgres';
import type { CounterDelta } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { FoldMerge, sessionDeltas, visitorDeltas, type FoldSource, type SessionDelta, type VisitorDelta } from './flush-rows.ts';
import { query } from './queries.ts';
import { markRollupDaysStale } from './rollup-marks.ts';

/** What one flush adds to the hourly ingest counters (the overview's ingest.last24h), and to which hour. */
export type CounterRow = CounterDelta & { hour: string };

/** One flush's deltas, held by its actor until a checkpoint; `journalId` names its journal row. */
export type FoldEntry = { journalId: string; sessions: SessionDelta[]; visitors: VisitorDelta[]; counters: CounterRow | null };

export type FoldJournal = {
  /** In the flush's transaction: journals what the new events add to sessions and visitors, and the
   *  flush's counts (null: none) to the counters. */
  write: (tx: Sql, projectId: string, fresh: readonly EnrichedEvent[], counters: CounterRow | null) => Promise<FoldEntry>;
  /** Applies the entries whose journal rows are still there, and deletes those rows, in one transaction. */
  checkpoint: (projectId: string, entries: readonly FoldEntry[]) => Promise<void>;
  /** Applies the journal rows of processes that are gone; answers how many rows it applied. */
  recover: (opts: { onlyProcess: boolean; graceSeconds?: number }) => Promise<number>;
  /** Tells other processes that this one still holds its journal rows. */
  heartbeat: () => Promise<void>;
};

export function createFoldJournal(sql: Sql, owner: string): FoldJournal {
  return {
    async write(tx, projectId, fresh, counters) {
      const sessions = sessionDeltas(fresh);
      const visitors = visitorDeltas(fresh);
      const [row] = await query<{ id: string }>(tx, 'insert_fold_journal', [projectId, owner, journalBody(fresh, visitors, counters)]);
      return { journalId: row!.id, sessions, visitors, counters };
    },
    async checkpoint(projectId, entries) {
      if (entries.length === 0) return;
      await sql.begin(async (tx) => {
        // Planned once per connection, like the flush's statements; dispatched ahead of the first statement.
        const generic = tx`set local plan_cache_mode = force_generic_plan`.execute();
        // The project's row first (lock_project.sql); a deleted project's journal rows are gone with it, so
        // then nothing is claimed and nothing applied.
        const [, , claimed] = await Promise.all([
          generic,
          query(tx, 'lock_project', [projectId]),
          query<{ id: string }>(tx, 'delete_fold_journal', [entries.map((e) => e.journalId)]),
        ]);
        const ids = new Set(claimed.map((r) => r.id));
        await apply(tx, projectId, ids.size === entries.length ? entries : entries.filter((e) => ids.has(e.journalId)));
      });
    },
    async recover({ onlyProcess, graceSeconds = 60 }) {
      return sql.begin(async (tx) => {
        const rows = await query<{ id: string; project_id: string; body: string }>(tx, 'claim_orphan_folds', [owner, onlyProcess, graceSeconds]);
        const byProject = new Map<string, FoldEntry[]>();
        // Flush order (identity order) so the merge keeps each session's first facts.
        for (const r of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
          const entry = await recompute(tx, r.project_id, r.id, JSON.parse(r.body) as JournalBody);
          byProject.set(r.project_id, [...(byProject.get(r.project_id) ?? []), entry]);
        }
        for (const projectId of [...byProject.keys()].sort()) await apply(tx, projectId, byProject.get(projectId)!);
        return rows.length;
      });
    },
    async heartbeat() {
      await query(sql, 'touch_fold_owner', [owner]);
    },
  };
}

/** Merges the entries and upserts the rows, in pieces: a checkpoint holds seconds of a busy project's
 *  deltas, and building it in one go would stall the event loop (and every request) for tens of ms. */
async function apply(tx: TransactionSql, projectId: string, entries: readonly FoldEntry[]): Promise<void> {
  const merged = new FoldMerge();
  for (let i = 0; i < entries.length; i++) {
    merged.add(entries[i]!.sessions, entries[i]!.visitors);
    if (i % 8 === 7) await new Promise(setImmediate);
  }
  const pastDays = new Set<string>();
  for (const rows of pieces(merged.sessionRows())) {
    for (const { day } of await query<{ day: string }>(tx, 'upsert_sessions', [projectId, JSON.stringify(rows)])) pastDays.add(day);
  }
  // A session that reaches into a past day changes that day's rollup (its sessions and their spans).
  await markRollupDaysStale(tx, projectId, [...pastDays].sort());
  for (const rows of pieces(merged.visitorRows())) await query(tx, 'upsert_visitors', [projectId, JSON.stringify(rows)]);
  for (const c of sumByHour(entries)) await query(tx, 'add_ingest_counters', [projectId, c.hour, c.accepted, c.duplicates, c.rejected, c.rateLimited]);
}

/** The entries' counts summed per hour, in hour order (usually one hour). */
function sumByHour(entries: readonly FoldEntry[]): CounterRow[] {
  const hours = new Map<string, CounterRow>();
  for (const { counters: c } of entries) {
    if (!c) continue;
    const sum = hours.get(c.hour);
    if (!sum) hours.set(c.hour, { ...c });
    else (sum.accepted += c.accepted, sum.duplicates += c.duplicates, sum.rejected += c.rejected, sum.rateLimited += c.rateLimited);
  }
  return [...hours.values()].sort((a, b) => (a.hour < b.hour ? -1 : 1));
}

/** Runs of 2,000 rows: each is one statement, and the event loop runs between them. */
function* pieces<T>(rows: T[], size = 2_000): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/** A journal row's body: the flush's event ids and ts range (null without new events), per visitor the
 *  facts events lack, and the flush's counts (absent in rows written before counters were journaled). */
type JournalBody = { ids: string[]; from: string | null; to: string | null; extras: VisitorExtras[]; counters?: CounterRow | null };
type VisitorExtras = Pick<VisitorDelta, 'id' | 'postal_code' | 'timezone' | 'latitude' | 'longitude' | 'traits' | 'experiments' | 'bot_signals'>;

function journalBody(fresh: readonly EnrichedEvent[], visitors: readonly VisitorDelta[], counters: CounterRow | null): string {
  let from = fresh[0]?.ts ?? null, to = from;
  for (const e of fresh) (from = e.ts < from! ? e.ts : from, to = e.ts > to! ? e.ts : to);
  const extras = visitors.map((v): VisitorExtras => ({
    id: v.id, postal_code: v.postal_code, timezone: v.timezone, latitude: v.latitude, longitude: v.longitude,
    traits: v.traits, experiments: v.experiments, bot_signals: v.bot_signals,
  }));
  return JSON.stringify({ ids: fresh.map((e) => e.id), from, to, extras, counters } satisfies JournalBody);
}

/** The deltas a journaled flush made, from its stored events (in the order it received them). */
async function recompute(tx: TransactionSql, projectId: string, journalId: string, body: JournalBody): Promise<FoldEntry> {
  const counters = body.counters ?? null;
  if (body.ids.length === 0) return { journalId, sessions: [], visitors: [], counters };
  const stored = await query<StoredEvent>(tx, 'list_journaled_events', [projectId, body.from, body.to, body.ids]);
  const order = new Map(body.ids.map((id, i) => [id, i]));
  const events = stored.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(asFoldSource);
  const extras = new Map(body.extras.map((x) => [x.id, x]));
  const visitors = visitorDeltas(events).map((v) => ({ ...v, ...extras.get(v.id) }));
  return { journalId, sessions: sessionDeltas(events), visitors, counters };
}

type StoredEvent = Omit<FoldSource, 'postal_code' | 'timezone' | 'latitude' | 'longitude' | 'traits' | 'experiments' | 'bot_signals'> & { id: string };

/** A stored event with the visitor facts events lack left empty (the journal's extras fill them in). */
const asFoldSource = (e: StoredEvent): FoldSource => ({
  ...e, postal_code: null, timezone: null, latitude: null, longitude: null, traits: {}, experiments: {}, bot_signals: null,
});

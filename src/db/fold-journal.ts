// Sessions, visitors and the hourly ingest counters are written at checkpoints, not in every flush: a
// flush journals itself in its own transaction, the actor merges its deltas into what it holds in memory
// (PendingFolds), and a checkpoint applies them (one upsert a session and visitor, one a counters hour)
// while deleting their journal rows. Rows left by a process that died are applied by recover(), which
// recomputes the deltas from the flush's stored events plus the few visitor facts events do not keep,
// and the journaled counts.
// Either way a journal row is applied exactly once: whoever deletes it applies it.
import type { Sql, TransactionSql } from 'postgres';
import type { BotSignals } from '../ingest/bot-score.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { zoneAt } from '../ingest/geo.ts';
import {
  PendingFolds,
  hasKeys,
  sessionDeltas,
  visitorDeltas,
  type CounterRow,
  type FoldEntry,
  type FoldSource,
  type SessionDelta,
  type VisitorDelta,
} from '../../actors/flush-rows.ts';
import { query } from './queries.ts';
import { markRollupDaysStale } from './rollup-marks.ts';
import { sessionRows, visitorRows } from './flush-text.ts';

export type { CounterRow, FoldEntry } from '../../actors/flush-rows.ts';

/** A flush's journal row before it is stored: its body (insert_fold_journal.sql's $3) and the deltas it stands for. */
export type JournalRow = Omit<FoldEntry, 'journalId'> & { body: string };

/** What the new events of a flush add to sessions and visitors, and the flush's counts, as a journal row. */
export function journalRow(fresh: readonly EnrichedEvent[], counters: CounterRow | null): JournalRow {
  const sessions = sessionDeltas(fresh);
  const visitors = visitorDeltas(fresh);
  return { body: journalBody(fresh, visitors, counters), sessions, visitors, counters };
}

export type FoldJournal = {
  /** In the flush's transaction: stores the flush's journal row (journalRow: what its new events add to
   *  sessions and visitors, and its counts). */
  write: (tx: Sql, projectId: string, row: JournalRow) => Promise<FoldEntry>;
  /** Applies what an actor holds and deletes its journal rows, in one transaction. Rows a recovery applied
   *  already (it took this process for dead) are not applied again: the rest are then applied as a
   *  recovery applies them, from their stored events. */
  checkpoint: (projectId: string, pending: PendingFolds) => Promise<void>;
  /** Applies the journal rows of processes that are gone, project by project; answers how many rows it
   *  applied. A project whose rows fail is told to `onProject` (and its rows stay for the next recovery)
   *  while the others go on; without `onProject` the first failure is thrown, after the others are done. */
  recover: (opts: {
    onlyProcess: boolean;
    graceSeconds?: number;
    onProject?: (projectId: string, err: unknown | null) => void;
  }) => Promise<number>;
  /** Tells other processes that this one still holds its journal rows. */
  heartbeat: () => Promise<void>;
};

export function createFoldJournal(sql: Sql, owner: string): FoldJournal {
  return {
    async write(tx, projectId, { body, ...deltas }) {
      const [row] = await query<{ id: string }>(tx, 'insert_fold_journal', [projectId, owner, body]);
      return { journalId: row!.id, ...deltas };
    },
    async checkpoint(projectId, pending) {
      if (pending.size === 0) return;
      const whole = await sql
        .begin(async (tx) => {
          // Planned once per connection, like the flush's statements; dispatched ahead of the first statement.
          const generic = tx`set local plan_cache_mode = force_generic_plan`.execute();
          // The project's row first (lock_project.sql); a deleted project's journal rows are gone with it, so
          // then nothing is claimed and nothing applied.
          const [, held, claimed] = await Promise.all([
            generic,
            query(tx, 'lock_project', [projectId]),
            query<{ id: string }>(tx, 'delete_fold_journal', [pending.journalIds, false]),
          ]);
          if (held.length === 0) return true;
          // The merged deltas cannot be told apart by flush: when a row is missing, this claim is undone.
          if (claimed.length < pending.size) throw PARTLY_APPLIED;
          await apply(tx, projectId, pending);
          return true;
        })
        .catch((err: unknown) => {
          if (err === PARTLY_APPLIED) return false;
          throw err;
        });
      if (!whole) {
        await applyFromEvents(sql, async (tx) => {
          // The project first, as every writer does (lock_project.sql); gone, its journal rows went with it.
          const held = await query(tx, 'lock_project', [projectId]);
          return held.length === 0
            ? []
            : query<StoredJournalRow>(tx, 'delete_fold_journal', [pending.journalIds, true]);
        });
      }
    },
    async recover({ onlyProcess, graceSeconds = 60, onProject }) {
      const projects = await query<{ id: string }>(sql, 'list_orphan_fold_projects', [
        owner,
        onlyProcess,
        graceSeconds,
      ]);
      let applied = 0;
      let firstError: unknown = null;
      for (const { id } of projects) {
        try {
          applied += await applyFromEvents(sql, async (tx) => {
            // The project first, as every writer does (lock_project.sql): one deleted meanwhile is not held,
            // and its journal rows went with it.
            if ((await query(tx, 'lock_project', [id])).length === 0) return [];
            return query<StoredJournalRow>(tx, 'claim_orphan_folds', [owner, onlyProcess, graceSeconds, [id]]);
          });
          onProject?.(id, null);
        } catch (err) {
          if (onProject) onProject(id, err);
          else firstError ??= err;
        }
      }
      if (firstError !== null) throw firstError;
      return applied;
    },
    async heartbeat() {
      await query(sql, 'touch_fold_owner', [owner]);
    },
  };
}

/** A recovery that took this process for dead claimed some of its rows (a checkpoint found them gone). */
const PARTLY_APPLIED = new Error('some of these journal rows were applied by another process');

type StoredJournalRow = { id: string; project_id: string; body: string };

/** Claims journal rows (`claim` deletes and answers them) and applies them from their stored events, in one
 *  transaction: whoever deletes a row applies it. Answers how many rows it applied. */
async function applyFromEvents(sql: Sql, claim: (tx: TransactionSql) => Promise<StoredJournalRow[]>): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await claim(tx);
    const byProject = new Map<string, PendingFolds>();
    // Flush order (identity order) so the merge keeps each session's first facts.
    for (const [i, r] of rows.sort((a, b) => Number(a.id) - Number(b.id)).entries()) {
      const entry = await recompute(tx, r.project_id, r.id, JSON.parse(r.body) as JournalBody);
      let pending = byProject.get(r.project_id);
      if (!pending) byProject.set(r.project_id, (pending = new PendingFolds()));
      pending.add(entry);
      if (i % 8 === 7) await new Promise(setImmediate); // a backlog of a busy project merges for a while
    }
    for (const projectId of [...byProject.keys()].sort()) await apply(tx, projectId, byProject.get(projectId)!);
    return rows.length;
  });
}

/** Upserts the merged rows, in pieces: a checkpoint holds seconds of a busy project's deltas, and sending
 *  them in one statement would stall the event loop (and every request) for tens of ms. */
async function apply(tx: TransactionSql, projectId: string, pending: PendingFolds): Promise<void> {
  const stretched: { day: string; session: string }[] = [];
  for (const rows of pieces(pending.merged.sessionRows()))
    stretched.push(...(await upsertSessions(tx, projectId, rows)));
  // A session that reaches into a past day changes that day's rollup (its sessions and their spans).
  await markRollupDaysStale(tx, projectId, { days: [], events: [], sessions: stretched });
  for (const rows of pieces(pending.merged.visitorRows())) await upsertVisitors(tx, projectId, rows);
  for (const c of sumByHour(pending.counters))
    await query(tx, 'add_ingest_counters', [projectId, c.hour, c.accepted, c.duplicates, c.rejected, c.rateLimited]);
}

/** Adds session deltas (sorted by id) to their stored rows (upsert_sessions.sql), in the flush's text form;
 *  answers each updated session with each past UTC day it spans (see the statement). */
export async function upsertSessions(
  tx: Sql | TransactionSql,
  projectId: string,
  rows: readonly SessionDelta[],
): Promise<{ day: string; session: string }[]> {
  return query<{ day: string; session: string }>(tx, 'upsert_sessions', [projectId, sessionRows(rows)]);
}

/** Adds visitor deltas (sorted by id) to their stored rows (upsert_visitors.sql), in the flush's text form. */
export async function upsertVisitors(
  tx: Sql | TransactionSql,
  projectId: string,
  rows: readonly VisitorDelta[],
): Promise<void> {
  await query(tx, 'upsert_visitors', [projectId, visitorRows(rows)]);
}

/** Counts summed per hour, in hour order (usually one hour). */
function sumByHour(counters: readonly CounterRow[]): CounterRow[] {
  const hours = new Map<string, CounterRow>();
  for (const c of counters) {
    const sum = hours.get(c.hour);
    if (!sum) hours.set(c.hour, { ...c });
    else
      ((sum.accepted += c.accepted),
        (sum.duplicates += c.duplicates),
        (sum.rejected += c.rejected),
        (sum.rateLimited += c.rateLimited));
  }
  return [...hours.values()].sort((a, b) => (a.hour < b.hour ? -1 : 1));
}

/** Runs of 500 rows: each is one statement, and the event loop runs between them. Serializing 2,000
 *  session or visitor rows held the event loop 4–9 ms (and every request waiting on it); 500, about 2. */
function* pieces<T>(rows: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/** A journal row's body: the flush's event ids and ts range (null without new events), per visitor the
 *  facts events lack, and the flush's counts (absent in rows written before counters were journaled). */
type JournalBody = {
  ids: string[];
  from: string | null;
  to: string | null;
  extras: VisitorExtras[];
  counters?: CounterRow | null;
};
/** A visitor's facts events lack. A member left out holds what a stored event gives recovery (asFoldSource):
 *  null, or no keys; the time zone is left out where it is the one at the coordinates (withExtras).
 *  `bot_signals` may be written short (signalsText). Rows written before either holds every member in full,
 *  and read the same. */
type VisitorExtras = Pick<VisitorDelta, 'id'> &
  Partial<
    Pick<VisitorDelta, 'postal_code' | 'timezone' | 'latitude' | 'longitude' | 'traits' | 'experiments' | 'bot_signals'>
  >;

function journalBody(
  fresh: readonly EnrichedEvent[],
  visitors: readonly VisitorDelta[],
  counters: CounterRow | null,
): string {
  let from = fresh[0]?.ts ?? null,
    to = from;
  for (const e of fresh) ((from = e.ts < from! ? e.ts : from), (to = e.ts > to! ? e.ts : to));
  return JSON.stringify({
    ids: fresh.map((e) => e.id),
    from,
    to,
    extras: visitors.map(extrasOf),
    counters,
  } satisfies JournalBody);
}

/** The journal is written by every flush and read only after a crash, and its extras were most of it
 *  (about 200 of its 210 bytes an event under bench:ingest): they hold only what recovery could not assume. */
function extrasOf(v: VisitorDelta): VisitorExtras {
  const x: VisitorExtras = { id: v.id };
  if (v.postal_code !== null) x.postal_code = v.postal_code;
  if (v.timezone !== zoneAt(v.latitude, v.longitude)) x.timezone = v.timezone; // null too, where a zone would be derived
  if (v.latitude !== null) x.latitude = v.latitude;
  if (v.longitude !== null) x.longitude = v.longitude;
  if (hasKeys(v.traits)) x.traits = v.traits;
  if (hasKeys(v.experiments)) x.experiments = v.experiments;
  if (v.bot_signals !== null) x.bot_signals = signalsText(v.bot_signals) ?? v.bot_signals;
  return x;
}

/** extrasOf's inverse, for rows of either form: what a journaled visitor's extras say. */
function extrasFrom(x: VisitorExtras): VisitorExtras {
  return x.bot_signals === undefined ? x : { ...x, bot_signals: signalsFrom(x.bot_signals) };
}

/** The bot signals in their usual form (BotSignals: these six members in this order, each true, false or null)
 *  as six letters, t, f or n: `tnfnnn`. Any other value is journaled as it is (null answered). */
const SIGNALS = [
  'headless',
  'webdriver',
  'datacenterAsn',
  'pointerEvents',
  'uaMismatch',
  'uniformDwell',
] as const satisfies readonly (keyof BotSignals)[];
const LETTER = new Map<unknown, string>([
  [true, 't'],
  [false, 'f'],
  [null, 'n'],
]);
const VALUE: Record<string, boolean | null> = { t: true, f: false, n: null };

export function signalsText(signals: unknown): string | null {
  if (typeof signals !== 'object' || signals === null || Array.isArray(signals)) return null;
  let text = '';
  let i = 0;
  for (const key in signals) {
    const letter = key === SIGNALS[i++] ? LETTER.get((signals as Record<string, unknown>)[key]) : undefined;
    if (letter === undefined) return null;
    text += letter;
  }
  return i === SIGNALS.length ? text : null;
}

/** signalsText's inverse; any other value as it is. */
export function signalsFrom(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return Object.fromEntries(SIGNALS.map((key, i) => [key, VALUE[value[i]!]]));
}

/** The deltas a journaled flush made, from its stored events (in the order it received them). */
async function recompute(
  tx: TransactionSql,
  projectId: string,
  journalId: string,
  body: JournalBody,
): Promise<FoldEntry> {
  const counters = body.counters ?? null;
  if (body.ids.length === 0) return { journalId, sessions: [], visitors: [], counters };
  const stored = await query<StoredEvent>(tx, 'list_journaled_events', [projectId, body.from, body.to, body.ids]);
  const order = new Map(body.ids.map((id, i) => [id, i]));
  const events = stored.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(asFoldSource);
  const extras = new Map(body.extras.map((x) => [x.id, extrasFrom(x)]));
  const visitors = visitorDeltas(events).map((v) => withExtras(v, extras.get(v.id)));
  return { journalId, sessions: sessionDeltas(events), visitors, counters };
}

type StoredEvent = Omit<
  FoldSource,
  'postal_code' | 'timezone' | 'latitude' | 'longitude' | 'traits' | 'experiments' | 'bot_signals'
> & { id: string };

/** A recovered visitor with its journaled extras; a time zone they leave out is the one at the coordinates
 *  (extrasOf). */
function withExtras(v: VisitorDelta, x: VisitorExtras | undefined): VisitorDelta {
  if (x === undefined) return v;
  const merged = { ...v, ...x };
  return 'timezone' in x ? merged : { ...merged, timezone: zoneAt(merged.latitude, merged.longitude) };
}

/** A stored event with the visitor facts events lack left empty (the journal's extras fill them in). */
const asFoldSource = (e: StoredEvent): FoldSource => ({
  ...e,
  postal_code: null,
  timezone: null,
  latitude: null,
  longitude: null,
  traits: {},
  experiments: {},
  bot_signals: null,
});

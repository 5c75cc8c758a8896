// The actors' store: one group commit per flush (events with sessions, visitors and speed samples,
// then log lines and ingest counters) in a single transaction. Monthly partitions are made ahead of use.
import type { Sql } from 'postgres';
import type { ActorStore, CounterDelta, PendingLog } from '../../actors/project-actor.ts';
import type { LogLine } from '../../actors/log-ring.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { decideTransition, type IssueStatus } from '../../actors/issue-lifecycle.machine.ts';
import type { Logger } from '../log.ts';
import { query } from './queries.ts';

/** What a new occurrence does to an issue in each status, asked of the lifecycle machine once, so the
 *  flush statement applies the machine's decision instead of a rule of its own. */
const OCCURRENCE_RULES = JSON.stringify(Object.fromEntries((['open', 'resolved', 'ignored'] as IssueStatus[]).map((status) => {
  const at = '2000-01-01T00:00:00.000Z';
  const decide = (isRegression: boolean) => {
    const d = decideTransition({ status, isRegression, resolvedAt: status === 'resolved' ? at : null }, { type: 'occurrence', at });
    if (!d.ok) throw new Error(`the lifecycle machine refuses an occurrence of a ${status} issue: ${d.reason}`);
    return d.next;
  };
  const [a, b] = [decide(false), decide(true)];
  return [status, { status: a.status, regression: a.isRegression === b.isRegression ? a.isRegression : null, clearResolvedAt: a.resolvedAt === null }];
})));

export function createEventStore(sql: Sql, log?: Logger): ActorStore & { ensurePartition: (at: Date) => Promise<void> } {
  const partitions = new Set<string>();
  const pendingPartitions = new Map<string, Promise<void>>();

  async function ensurePartition(at: Date): Promise<void> {
    const month = at.toISOString().slice(0, 7);
    if (partitions.has(month)) return;
    let p = pendingPartitions.get(month);
    if (!p) {
      p = query(sql, 'ensure_events_partition', [at]).then(() => void partitions.add(month)).finally(() => pendingPartitions.delete(month));
      pendingPartitions.set(month, p);
    }
    await p;
  }

  return {
    ensurePartition,
    async commit(projectId, events, after) {
      // Partition DDL runs before the transaction: inside it, PGlite would queue it behind ourselves.
      for (const month of new Set(events.map((e) => e.ts.slice(0, 7)))) await ensurePartition(new Date(`${month}-01T00:00:00Z`));
      const result = await retryOnConflict(() => sql.begin(async (tx) => {
        const inserted = new Set<string>();
        // The flush statement's plan never depends on its one JSON parameter: plan it once per connection.
        await tx`set local plan_cache_mode = force_generic_plan`;
        if (events.length > 0) {
          const rows = await query<{ id: string }>(tx, 'insert_events_batch', [JSON.stringify(events.map(storedRow)) as never, OCCURRENCE_RULES]);
          for (const r of rows) inserted.add(r.id);
        }
        const { logs, counters } = after(inserted);
        let stored: LogLine[] = [];
        if (logs.length > 0) {
          const ids = await query<{ id: string; ts: Date }>(tx, 'insert_logs', [JSON.stringify(logs.map((l) => ({ ...l, project_id: projectId }))) as never]);
          stored = logs.map((l, i) => ({ ...l, id: ids[i]!.id, ts: ids[i]!.ts.toISOString() }));
        }
        return { inserted, logs: stored, counters };
      }));
      // The hourly counters row is shared by every flush of the project: updating it after the commit
      // keeps concurrent flushes from queueing on its lock while they hold everything else.
      const c = result.counters;
      if (hasCounts(c)) {
        const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
        // The events are committed: a failed counter update must not turn their 202 into an error.
        await query(sql, 'add_ingest_counters', [projectId, hour, c.accepted, c.duplicates, c.rejected, c.rateLimited])
          .catch((err: unknown) => log?.warn('could not update ingest counters', { projectId, err }));
      }
      return { inserted: result.inserted, logs: result.logs };
    },
  };
}

/** Concurrent flushes of one project lock visitor and session rows in key order, but a deadlock between
 *  their sub-statements stays possible; Postgres aborts one, and the flush is simply run again. */
async function retryOnConflict<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, 5 * i * Math.random()));
    }
  }
}

const hasCounts = (c: CounterDelta) => c.accepted + c.duplicates + c.rejected + c.rateLimited > 0;

/** Leaves out the members that are not stored (the verdict object and the client's session hint). */
function storedRow(e: EnrichedEvent) {
  const { bot: _bot, client_session: _hint, ...row } = e;
  return row;
}

export type { PendingLog };

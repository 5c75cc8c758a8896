// What autovacuum does on PostgreSQL, for the embedded database, which has none: PGlite is one process
// with no background workers. Without it the space of every deleted or replaced row stayed dead, since
// only a vacuum tells the table's free-space map about it: the fold journal's rows (written by each flush,
// deleted by the checkpoint that applies them), the stale marks a build or fold takes, the rollup rows a
// rebuild of today or yesterday replaces, the sessions and visitors each checkpoint rewrites. Those tables
// only grew (a fifth of their size dead after 45,000 events, docs/benchmarks.md), and reads went through
// dead index entries. A pass every `everyMs` lists the tables past autovacuum's thresholds, a table's
// own settings first (list_tables_due_upkeep.sql), and vacuums or analyzes them, the most overdue first,
// one at a time until `budgetMs` has passed: each statement holds the one session every flush needs, as a
// build step does.
import type { Sql } from 'postgres';
import { repeatPasses } from '../passes.ts';
import { query } from './queries.ts';

export type UpkeepPass = {
  /** The tables vacuumed (and analyzed when due) and those only analyzed, in the order run. */
  vacuumed: string[];
  analyzed: string[];
  /** Tables still due when the budget ran out: the next pass takes them first. */
  left: number;
  ms: number;
};

type Due = { relation: string; vacuum: boolean; analyze: boolean };

/** Vacuums and analyzes the tables due, most overdue first, starting none after `budgetMs` (one at least). */
export async function upkeepPass(sql: Sql, budgetMs: number): Promise<UpkeepPass> {
  const t0 = performance.now();
  const due = await query<Due>(sql, 'list_tables_due_upkeep');
  const out: UpkeepPass = { vacuumed: [], analyzed: [], left: 0, ms: 0 };
  for (const [i, t] of due.entries()) {
    if (i > 0 && performance.now() - t0 > budgetMs) {
      out.left = due.length - i;
      break;
    }
    // A table dropped since it was listed is no longer due.
    const exists = sql`select 1 from pg_class where oid = to_regclass(${t.relation})`;
    if ((await exists).length === 0) continue;
    if (t.vacuum) {
      await (t.analyze ? sql`vacuum (analyze) ${sql(t.relation)}` : sql`vacuum ${sql(t.relation)}`);
      out.vacuumed.push(t.relation);
    } else {
      await sql`analyze ${sql(t.relation)}`;
      out.analyzed.push(t.relation);
    }
  }
  out.ms = performance.now() - t0;
  return out;
}

/** Runs a pass every `everyMs` (at most `budgetMs` of statements started), reporting each that did work;
 *  answers a stop that waits for the pass under way. */
export function startUpkeep(
  sql: Sql,
  opts: { everyMs: number; budgetMs?: number; onPass: (pass: UpkeepPass) => void; onError: (err: unknown) => void },
): () => Promise<void> {
  let stopping = false;
  const stop = repeatPasses(opts.everyMs, async () => {
    try {
      const done = await upkeepPass(sql, opts.budgetMs ?? 1_000);
      if (done.vacuumed.length + done.analyzed.length > 0) opts.onPass(done);
    } catch (err) {
      if (!stopping) opts.onError(err);
    }
  });
  return () => ((stopping = true), stop());
}

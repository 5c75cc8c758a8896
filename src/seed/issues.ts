// Seeded error events open and count issues as ingested ones do: each is named by ingest's own grouping
// (issueFor), and the issues are written by the flush's own statement with the lifecycle machine's rules.
import type { Sql } from 'postgres';
import { OCCURRENCE_RULES } from '../db/event-store.ts';
import { issueDeltas, type IssueSource } from '../../actors/issue-deltas.ts';
import { query } from '../db/queries.ts';
import { issueFor } from '../ingest/error-issue.ts';
import type { SeedVisitor } from './generate.ts';

export class SeedIssues {
  private readonly occurrences: IssueSource[] = [];

  /** Names the issue of each of the visitor's error events (on the event) and remembers the occurrence. */
  attach(v: SeedVisitor): void {
    for (const s of v.sessions) {
      for (const e of s.events) {
        if (e.name !== 'error') continue;
        const issue = issueFor(e.props ?? {}, s.botScore, false);
        e.issue = issue?.issue_id ?? null;
        if (issue) this.occurrences.push({ ...issue, ts: new Date(e.ts).toISOString(), release: s.release });
      }
    }
  }

  /** Opens the issues, or adds to them (a second seed of the same project counts on), as a flush does. */
  async write(sql: Sql, projectId: string): Promise<number> {
    const deltas = issueDeltas(this.occurrences);
    if (deltas.length > 0) await query(sql, 'upsert_issues', [projectId, JSON.stringify(deltas), OCCURRENCE_RULES]);
    return deltas.length;
  }
}

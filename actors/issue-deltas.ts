// What a flush adds to its issues, summed in memory from the new error events: one row an issue, which
// upsert_issues.sql adds to the stored row in the flush's transaction. The earliest arrival wins a tie in ts.
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import { byId } from './flush-rows.ts';

export type IssueDelta = {
  id: string;
  title: string;
  culprit: string;
  type: string | null;
  level: string;
  count: number;
  first_seen: string;
  last_seen: string;
  /** The releases of the earliest and the latest occurrence that carried one, and when those happened. */
  first_release: string | null;
  first_release_at: string | null;
  last_release: string | null;
  last_release_at: string | null;
};

/** What an error event tells its issue: all issueDeltas reads (ingest's events, and seeded ones). */
export type IssueSource = Pick<
  EnrichedEvent,
  'issue_id' | 'issue_title' | 'issue_culprit' | 'issue_type' | 'issue_level' | 'ts' | 'release'
>;

export function issueDeltas(fresh: readonly IssueSource[]): IssueDelta[] {
  const out = new Map<string, IssueDelta>();
  for (const e of fresh) {
    if (e.issue_id === null) continue;
    const i = out.get(e.issue_id);
    const title = e.issue_title ?? '',
      culprit = e.issue_culprit ?? '',
      level = e.issue_level ?? 'error';
    const at = e.release === null ? null : e.ts;
    if (!i) {
      out.set(e.issue_id, {
        id: e.issue_id,
        title,
        culprit,
        type: e.issue_type,
        level,
        count: 1,
        first_seen: e.ts,
        last_seen: e.ts,
        first_release: e.release,
        first_release_at: at,
        last_release: e.release,
        last_release_at: at,
      });
      continue;
    }
    i.count++;
    if (e.ts < i.first_seen) Object.assign(i, { first_seen: e.ts, title, culprit, type: e.issue_type, level });
    if (e.ts > i.last_seen) i.last_seen = e.ts;
    if (at === null) continue;
    if (i.first_release_at === null || at < i.first_release_at)
      ((i.first_release = e.release), (i.first_release_at = at));
    // A tie (one arrival time for a batch's events without ts) goes to the later event in the batch.
    if (i.last_release_at === null || at >= i.last_release_at) ((i.last_release = e.release), (i.last_release_at = at));
  }
  return [...out.values()].sort(byId);
}

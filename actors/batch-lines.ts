// The log lines of one accepted request, written in its flush's transaction: the batch line, its
// duplicates, and a bot verdict (suspect or worse) for each visitor among the events it stored.
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { IngestMeta, PendingLog } from './project-actor.ts';

/** The lines one accepted request writes: the batch line, duplicates, and suspect-or-worse bot verdicts.
 *  `stored`: the ids it stored, when some of its events were duplicates (null: it stored every one). */
export function batchLines(
  w: { rows: EnrichedEvent[]; meta: IngestMeta },
  accepted: number,
  duplicates: number,
  stored: ReadonlySet<string> | null,
): PendingLog[] {
  const { requestId, rejected } = w.meta;
  if (w.rows.length + rejected === 0) return []; // a beacon carrying only SDK reports
  const lines: PendingLog[] = [
    {
      level: 'ok',
      kind: 'ingest',
      source: 'api',
      visitor: null,
      session: null,
      message: `Accepted ${accepted} of ${w.rows.length + rejected} events (${duplicates} duplicates, ${rejected} rejected)`,
      data: { requestId, accepted, duplicates, rejected },
    },
  ];
  if (duplicates > 0) {
    const ids = w.rows.filter((r) => !stored?.has(r.id)).map((r) => r.id);
    lines.push({
      level: 'info',
      kind: 'ingest',
      source: 'api',
      visitor: null,
      session: null,
      message: `${duplicates} duplicate event${duplicates === 1 ? '' : 's'} ignored (already stored)`,
      data: { requestId, duplicates, ids: ids.slice(0, 20) },
    });
  }
  // Verdicts of the events stored now: a retried batch's duplicates were judged when they first came.
  const judged = new Set<string>();
  for (const r of w.rows) {
    if (r.bot.verdict === 'human' || judged.has(r.visitor_id) || (stored && !stored.has(r.id))) continue;
    judged.add(r.visitor_id);
    lines.push({
      level: r.bot.verdict === 'bot' ? 'warn' : 'info',
      kind: 'signals',
      source: 'engine',
      visitor: r.visitor_id,
      session: r.session_id || null,
      message: `Visitor classified as ${r.bot.verdict} (score ${r.bot.score}${r.bot.reasons.length ? `: ${r.bot.reasons.join(', ')}` : ''})`,
      data: { score: r.bot.score, verdict: r.bot.verdict, signals: r.bot.signals, reasons: r.bot.reasons, requestId },
    });
  }
  return lines;
}

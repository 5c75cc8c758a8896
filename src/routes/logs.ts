// The log stream: the last 100 lines, lines after a cursor as soon as they arrive (long-poll, 25 s),
// or a Server-Sent Events stream resumable with Last-Event-ID. History from the database, live from the actor.
import * as v from 'valibot';
import type { LogFilter, LogLine } from '../../actors/log-ring.ts';
import { formatSse, sseHeartbeat } from '../../actors/sse-format.ts';
import { listLogs } from '../db/logs.ts';
import type { Services } from '../services.ts';
import { reply, route } from './route.ts';
import { logsResponse } from './responses.ts';

const LONG_POLL_MS = 25_000;
const HEARTBEAT_MS = 15_000;
const HISTORY_PAGE = 1_000;
/** Line ids are bigint: a cursor past the largest has no line after it (a 19-digit cursor may be larger). */
const MAX_ID = 9_223_372_036_854_775_807n;
const cursorOf = (digits: string): string => (BigInt(digits) > MAX_ID ? MAX_ID.toString() : digits);

const LogsQuery = v.object({
  level: v.optional(v.picklist(['info', 'ok', 'warn', 'error'], 'must be info, ok, warn or error')),
  kind: v.optional(
    v.picklist(
      ['ingest', 'transport', 'pipeline', 'signals', 'jobs', 'auth'],
      'must be ingest, transport, pipeline, signals, jobs or auth',
    ),
  ),
  source: v.optional(v.picklist(['api', 'sdk', 'engine', 'cron'], 'must be api, sdk, engine or cron')),
  visitor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  q: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  after: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,19}$/, 'must be 1–19 digits (a line id)'))),
});

export const logRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/logs',
    response: logsResponse,
    otherContent: {
      'text/event-stream':
        'With Accept: text/event-stream: retry:, then one `event: log` a line (data: the line, id: its id) and a `: ping` comment every 15 s.',
    },
    access: 'detail',
    tag: 'Logs',
    settles: 'none',
    summary:
      'Ingest and engine decisions. Without after: the last 100 lines. With after: newer lines as soon as they arrive, ' +
      'or an empty page after 25 s. Accept: text/event-stream streams them (resume with Last-Event-ID).',
    query: LogsQuery,
    async handler({ query, project, services, headers, signal }) {
      const { after: sent, ...filter } = query;
      const after = sent === undefined ? undefined : cursorOf(sent);
      if ((headers.accept ?? '').includes('text/event-stream')) {
        const lastEventId = headers['last-event-id'];
        const resume = lastEventId && /^[0-9]{1,19}$/.test(lastEventId) ? cursorOf(lastEventId) : after;
        return reply({
          contentType: 'text/event-stream; charset=utf-8',
          headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
          stream: streamLines(services, project.id, filter, resume ?? null, signal),
        });
      }
      if (after === undefined) {
        const lines = await listLogs(services.sql, project.id, filter, null, 100);
        return page(lines, null);
      }
      const stored = await listLogs(services.sql, project.id, filter, after, 100);
      if (stored.length > 0) return page(stored, sent ?? null);
      const woke = await services.actors.logs(project.id).waitFor(BigInt(after), filter, LONG_POLL_MS, signal);
      if (woke.length === 0) return page([], sent ?? null);
      // The ring tells that lines came; the database tells which (see linesAfter).
      const lines = await listLogs(services.sql, project.id, filter, after, 100);
      return page(lines, maxId(after, woke.at(-1)!.id));
    },
  }),
];

const page = (lines: LogLine[], after: string | null) => ({ data: lines, nextCursor: lines.at(-1)?.id ?? after });

const maxId = (a: string, b: string) => (BigInt(a) >= BigInt(b) ? a : b);

/** History after the cursor first (without one, the last 100 lines), page by page from the database until
 *  it is caught up; then, each time the actor's ring has newer lines, those lines, read from the database
 *  (linesAfter); a heartbeat comment keeps proxies from timing out. */
async function* streamLines(
  services: Services,
  projectId: string,
  filter: LogFilter,
  after: string | null,
  signal: AbortSignal,
) {
  const ring = services.actors.logs(projectId);
  let cursor: bigint | null = after === null ? null : BigInt(after);
  yield `retry: 2000\n\n`;
  const history =
    cursor === null
      ? await listLogs(services.sql, projectId, filter, null, 100)
      : linesAfter(services, projectId, filter, cursor, signal);
  for await (const line of history) {
    cursor = BigInt(line.id);
    yield formatSse(line);
  }
  cursor ??= ring.lastId ?? 0n;
  while (!signal.aborted) {
    const woke = await ring.waitFor(cursor, filter, HEARTBEAT_MS, signal);
    if (signal.aborted) return;
    if (woke.length === 0) {
      yield sseHeartbeat();
      continue;
    }
    for await (const line of linesAfter(services, projectId, filter, cursor, signal)) {
      cursor = BigInt(line.id);
      yield formatSse(line);
    }
    // Past what woke it, whatever the database served (a line with an old time of its own is not served).
    const last = BigInt(woke.at(-1)!.id);
    if (last > cursor) cursor = last;
  }
}

/** The lines after `cursor`, read from the database page by page: the history of a resumed stream, and the
 *  lines the ring woke it for. A line's id is drawn in commit order within its project (docs/sql.md), so
 *  the database never holds a line behind one it serves. The ring can: a job's line, or one another process
 *  forwards, may reach it after a larger id did, and a cursor handed out from the ring would pass it by. */
async function* linesAfter(
  services: Services,
  projectId: string,
  filter: LogFilter,
  cursor: bigint,
  signal: AbortSignal,
) {
  for (let full = true; full && !signal.aborted;) {
    const lines = await listLogs(services.sql, projectId, filter, cursor.toString(), HISTORY_PAGE);
    full = lines.length === HISTORY_PAGE;
    for (const line of lines) {
      cursor = BigInt(line.id);
      yield line;
    }
  }
}

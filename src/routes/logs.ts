// The log stream: the last 100 lines, lines after a cursor as soon as they arrive (long-poll, 25 s),
// or a Server-Sent Events stream resumable with Last-Event-ID. Live lines come from the project's feed in
// this process (src/live): one read a wake for every subscriber, never one a subscriber.
import * as v from 'valibot';
import type { LogLine } from '../../actors/log-ring.ts';
import { listLogs } from '../db/logs.ts';
import { reply, route } from './route.ts';
import { logsResponse } from './responses.ts';

const LONG_POLL_MS = 25_000;
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
          push: (sink) => services.feeds.stream(project.id, filter, resume === undefined ? null : BigInt(resume), sink),
        });
      }
      if (after === undefined) return page(await listLogs(services.sql, project.id, filter, null, 100), null);
      const lines = await services.feeds.poll(project.id, filter, BigInt(after), LONG_POLL_MS, signal);
      return lines.length === 0 ? page(lines, sent ?? null) : shared(lines);
    },
  }),
];

const page = (lines: LogLine[], after: string | null) => ({ data: lines, nextCursor: lines.at(-1)?.id ?? after });

/** Long-polls woken by one line at one cursor share one page (src/live/project-feed.ts): its body is
 *  encoded once for all of them, not once an answer. A page with lines names its own cursor. */
const bodies = new WeakMap<LogLine[], Buffer>();
function shared(lines: LogLine[]) {
  let body = bodies.get(lines);
  if (!body) bodies.set(lines, (body = Buffer.from(JSON.stringify(page(lines, null)))));
  return reply({ raw: body, contentType: 'application/json; charset=utf-8' });
}

// Payloads that cross processes through the bus, validated on arrival like any other boundary.
import * as v from 'valibot';
import type { LogLine } from '../actors/log-ring.ts';

const LogLineSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[0-9]{1,19}$/)),
  ts: v.string(),
  level: v.picklist(['info', 'ok', 'warn', 'error']),
  kind: v.picklist(['ingest', 'transport', 'pipeline', 'signals', 'jobs', 'auth']),
  source: v.picklist(['api', 'sdk', 'engine', 'cron']),
  message: v.string(),
  data: v.record(v.string(), v.unknown()),
  visitor: v.nullable(v.string()),
  session: v.nullable(v.string()),
});

export const LogsMessage = v.object({ from: v.string(), projectId: v.string(), lines: v.array(LogLineSchema) });

export function readLogsMessage(message: unknown): { from: string; projectId: string; lines: LogLine[] } | null {
  const r = v.safeParse(LogsMessage, message);
  return r.success ? r.output : null;
}

// A request one process forwards to the process that holds a project's actor (src/cluster.ts), and its
// answer. Rows are the sender's enriched events: checked for the members the actor reads to place them.
const RowSchema = v.looseObject({
  id: v.string(),
  ts: v.string(),
  at: v.number(),
  name: v.string(),
  visitor_id: v.string(),
});
const PendingLogSchema = v.looseObject({
  level: v.string(),
  kind: v.string(),
  source: v.string(),
  message: v.string(),
});
const Envelope = { id: v.string(), from: v.string(), projectId: v.string() };

export const ForwardMessage = v.variant('kind', [
  v.object({
    kind: v.literal('ingest'),
    ...Envelope,
    rows: v.array(RowSchema),
    meta: v.object({ requestId: v.string(), rejected: v.number(), rejectionLogs: v.array(PendingLogSchema) }),
  }),
  v.object({ kind: v.literal('log'), ...Envelope, line: PendingLogSchema, counters: v.record(v.string(), v.number()) }),
  v.object({ kind: v.literal('realtime'), ...Envelope, limit: v.number() }),
  v.object({ kind: v.literal('mark-internal'), ...Envelope, visitor: v.string(), isInternal: v.boolean() }),
  v.object({ kind: v.literal('settle'), ...Envelope }),
  // Before a read across projects: apply what is held of these projects, those this process holds (to a process, not a project's holder).
  v.object({ kind: v.literal('settle-held'), id: v.string(), from: v.string(), projectIds: v.array(v.string()) }),
  v.object({
    kind: v.literal('reply'),
    id: v.string(),
    ok: v.boolean(),
    value: v.optional(v.unknown()),
    error: v.optional(v.object({ code: v.string(), message: v.string(), moved: v.optional(v.boolean()) })),
  }),
]);

export type ForwardMessage = v.InferOutput<typeof ForwardMessage>;

export function readForwardMessage(message: unknown): ForwardMessage | null {
  const r = v.safeParse(ForwardMessage, message);
  return r.success ? r.output : null;
}

/** A stopping process's word that it let these projects' leases go. */
const ReleasedMessage = v.object({ from: v.string(), projectIds: v.array(v.string()) });

export function readReleasedMessage(message: unknown): { from: string; projectIds: string[] } | null {
  const r = v.safeParse(ReleasedMessage, message);
  return r.success ? r.output : null;
}

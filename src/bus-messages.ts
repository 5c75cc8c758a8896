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

// Server-sent event framing for log lines; the HTTP layer (src/http/sse.ts) owns the socket.
// JSON.stringify escapes CR and LF inside strings, so a line's data is always one `data:` field.
import type { LogLine } from './log-ring.ts';

export function formatSse(line: LogLine): string {
  return `id: ${line.id}\nevent: log\ndata: ${JSON.stringify(line)}\n\n`;
}

// A comment frame: keeps proxies from closing an idle stream; clients ignore it.
export function sseHeartbeat(): string {
  return ': ping\n\n';
}

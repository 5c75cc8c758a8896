// Server-sent event framing, as text; src/http/push.ts owns the socket it goes to.
// `data` must hold no line break: JSON.stringify escapes CR and LF inside strings, so a JSON text never does.

export function sseEvent(id: string, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/** How long a client waits before it reconnects (with Last-Event-ID) after the stream ends. */
export function sseRetry(ms: number): string {
  return `retry: ${ms}\n\n`;
}

/** A comment frame: keeps proxies from closing an idle stream; clients ignore it. */
export const SSE_HEARTBEAT = ': ping\n\n';

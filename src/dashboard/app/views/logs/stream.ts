// The log tail: the last 100 lines (GET …/logs), then every newer line over Server-Sent Events from the
// last id seen. fetch carries the tab's token (EventSource could not); eventsource-parser reads the frames.
// A dropped stream resumes after the last id, with a backoff; a refusal (4xx) ends it with its message.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, apiUrl, get, token } from '../../api.ts';

export type LogLine = {
  id: string;
  ts: string;
  level: 'info' | 'ok' | 'warn' | 'error';
  kind: string;
  source: string;
  message: string;
  data: Record<string, unknown> | null;
  visitor: string | null;
  session: string | null;
};

export type Tail = {
  onLines: (lines: LogLine[]) => void;
  onStatus: (status: 'connecting' | 'live' | 'retrying' | 'refused', error?: Error) => void;
};

/** Starts the tail; the returned function stops it. */
export function tailLogs(path: string, filters: Record<string, string>, tail: Tail): () => void {
  const ctl = new AbortController();
  let last: string | null = null;
  let delay = 1000;
  const take = (lines: LogLine[]) => {
    if (lines.length === 0) return;
    last = lines[lines.length - 1]!.id;
    tail.onLines(lines);
  };
  const run = async () => {
    tail.onStatus('connecting');
    try {
      const first = await get<{ data: LogLine[]; nextCursor: string | null }>(path, filters, ctl.signal);
      take(first.data);
      // With no line yet, every matching line after id 0 is new.
      last ??= first.nextCursor ?? '0';
      for (;;) {
        await stream(path, { ...filters, after: last }, ctl.signal, take, () => {
          delay = 1000;
          tail.onStatus('live');
        });
        if (ctl.signal.aborted) return;
        tail.onStatus('retrying');
        await sleep(delay, ctl.signal);
        delay = Math.min(delay * 2, 30_000);
      }
    } catch (err) {
      if (ctl.signal.aborted) return;
      tail.onStatus('refused', err as Error);
    }
  };
  void run();
  return () => ctl.abort();
}

/** One stream until it ends or drops; throws only when the API refuses it. */
async function stream(
  path: string,
  query: Record<string, string>,
  signal: AbortSignal,
  take: (lines: LogLine[]) => void,
  opened: () => void,
): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token.value) headers.authorization = `Bearer ${token.value}`;
  let res: Response;
  try {
    res = await fetch(apiUrl(path, query), { headers, credentials: 'same-origin', signal });
  } catch {
    return; // the network: try again
  }
  if (res.status >= 400 && res.status < 500) {
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiError(res.status, body.error?.code ?? `HTTP_${res.status}`, body.error?.message ?? res.statusText);
  }
  if (!res.ok || !res.body) return;
  opened();
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value.event !== 'log') continue;
      try {
        take([JSON.parse(value.data) as LogLine]);
      } catch {
        // Not a line (a proxy's page): skip it.
      }
    }
  } catch {
    // Dropped mid-stream: the caller resumes after the last line taken.
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), done()), { once: true });
  });

// The project's live WebSocket (/v2/projects/{p}/live): the realtime snapshot as it changes and, with
// detail access, the log lines. No polling: the server pushes. A token goes as the first message (a
// browser cannot set headers on a socket); the cookie goes by itself. Reconnects with a backoff unless
// the server refused access (close codes 4000 + HTTP status).
import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { token } from '../../api.ts';

export type Row = { value: string; visitors: number };
export type Realtime = { visitors: number; pageviewsPerMinute: number; pages: Row[]; countries: Row[] };
export type LogLine = { id: string; ts: string; level: string; kind: string; message: string };

export type Live = {
  realtime: Signal<Realtime | null>;
  status: Signal<'connecting' | 'live' | 'refused' | 'offline'>;
  error: Signal<string | null>;
  /** Bumped on every push that can change stored numbers (a new snapshot, an accepted batch). */
  changes: Signal<number>;
  /** Accepted batches seen since the page opened: the first-event check turns green on the first. */
  accepted: Signal<number>;
};

export function useLive(project: string, credential: string): Live {
  const live = useMemo<Live>(
    () => ({
      realtime: signal(null),
      status: signal('connecting'),
      error: signal(null),
      changes: signal(0),
      accepted: signal(0),
    }),
    [project, credential],
  );
  useEffect(() => connect(project, live), [live]);
  return live;
}

function connect(project: string, live: Live): () => void {
  let ws: WebSocket | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let delay = 1000;
  const open = () => {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    ws = new WebSocket(`${scheme}://${location.host}/v2/projects/${encodeURIComponent(project)}/live`);
    ws.onopen = () => {
      if (token.value) ws?.send(JSON.stringify({ type: 'auth', token: token.value }));
    };
    ws.onmessage = (e) => onMessage(live, String(e.data), () => (delay = 1000));
    ws.onclose = (e) => {
      if (stopped) return;
      if (e.code >= 4400 && e.code < 4500) {
        live.status.value = 'refused';
        live.error.value = e.reason || 'The live feed was refused.';
        return;
      }
      live.status.value = 'offline';
      retry = setTimeout(open, delay);
      delay = Math.min(delay * 2, 30_000);
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    ws?.close();
  };
}

function onMessage(live: Live, text: string, healthy: () => void) {
  let msg: { type?: string; data?: Realtime; line?: LogLine };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    return;
  }
  if (msg.type === 'hello') {
    live.status.value = 'live';
    live.error.value = null;
    healthy();
  } else if (msg.type === 'realtime' && msg.data) {
    const before = live.realtime.value;
    live.realtime.value = msg.data;
    if (before) live.changes.value++;
  } else if (msg.type === 'log' && msg.line?.kind === 'ingest' && msg.line.level === 'ok') {
    live.accepted.value++;
    live.changes.value++;
  }
}

// The subscribers of `npm run bench:live`: SSE streams, WebSockets and long-polls of the log stream, each
// noting when it first saw the batch line of each bench request (found by its request id, without parsing
// the JSON of every line).
import { request } from 'node:http';
import WebSocket from 'ws';

export type Kind = 'sse' | 'websocket' | 'long-poll';
export type Subscriber = { close: () => void };
/** Told (once a subscriber and request) that a subscriber got the line of bench request `n`. */
export type Seen = (n: number, at: number) => void;

/** Calls `seen` for every request id of this run (`bench-<run>-<n>`) in `text` not seen before by this
 *  subscriber (lines of earlier runs come with the history a subscriber starts with). */
function scanner(run: string, seen: Seen) {
  const got = new Set<number>();
  const request = new RegExp(`"requestId":"bench-${run}-(\\d+)"`, 'g');
  return (text: string) => {
    const at = performance.now();
    for (const m of text.matchAll(request)) {
      const n = Number(m[1]);
      if (!got.has(n)) (got.add(n), seen(n, at));
    }
  };
}

export type Target = { base: string; project: string; token: string; run: string };

export function subscribe(kind: Kind, to: Target, seen: Seen): Promise<Subscriber> {
  const scan = scanner(to.run, seen);
  if (kind === 'sse') return sse(to, scan);
  if (kind === 'websocket') return socket(to, scan);
  return longPoll(to, scan);
}

function sse({ base, project, token }: Target, scan: (text: string) => void): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/v2/projects/${project}/logs`, {
      agent: false,
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    let tail = '';
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        // A line may be split between chunks: keep the unfinished frame for the next one.
        const text = tail + chunk;
        const end = text.lastIndexOf('\n\n');
        if (end < 0) return void (tail = text);
        scan(text.slice(0, end));
        tail = text.slice(end + 2);
      });
      res.on('error', () => {});
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

function socket({ base, project, token }: Target, scan: (text: string) => void): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v2/projects/${project}/live`, {
      headers: { authorization: `Bearer ${token}` },
    });
    ws.on('message', (m: Buffer) => scan(m.toString()));
    ws.once('message', () => resolve({ close: () => ws.terminate() })); // the hello
    ws.on('error', reject);
  });
}

async function longPoll({ base, project, token }: Target, scan: (text: string) => void): Promise<Subscriber> {
  const controller = new AbortController();
  const get = async (qs: string) => {
    const res = await fetch(`${base}/v2/projects/${project}/logs${qs}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`long-poll answered ${res.status}`);
    return text;
  };
  let cursor = (JSON.parse(await get('')) as { nextCursor: string | null }).nextCursor ?? '0';
  void (async () => {
    while (!controller.signal.aborted) {
      try {
        const text = await get(`?after=${cursor}`);
        scan(text);
        cursor = /"nextCursor":"(\d+)"/.exec(text)?.[1] ?? cursor;
      } catch {
        if (!controller.signal.aborted) await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return { close: () => controller.abort() };
}

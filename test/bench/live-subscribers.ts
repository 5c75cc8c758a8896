// The subscribers of `npm run bench:live`: SSE streams, WebSockets and long-polls of the log stream, each
// noting when it first saw the batch line of each bench request (found by its request id, without parsing
// the JSON of every line).
import { connect } from 'node:net';
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

/** A raw socket rather than node:http: at 10,000 streams the client's HTTP parsing would cost more CPU
 *  than the server's fan-out, on the same cores. The chunked framing is taken off by hand (a chunk header
 *  can fall in the middle of a line). */
function sse({ base, project, token }: Target, scan: (text: string) => void): Promise<Subscriber> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let head: Buffer | null = Buffer.alloc(0);
    let body: Buffer = Buffer.alloc(0); // chunked bytes not yet taken apart
    let tail = '';
    socket.on('connect', () =>
      socket.write(
        `GET /v2/projects/${project}/logs HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n` +
          'Accept: text/event-stream\r\n\r\n',
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      if (head) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!head.subarray(0, 12).toString().startsWith('HTTP/1.1 200'))
          return reject(new Error(`SSE answered ${head.subarray(0, 12).toString()}`));
        chunk = head.subarray(end + 4);
        head = null;
        resolve({ close: () => socket.destroy() });
      }
      body = body.length ? Buffer.concat([body, chunk]) : chunk;
      let text = '';
      for (;;) {
        // A chunk's closing CRLF may come only with the next chunk: it is skipped when it does.
        if (body[0] === 13 && body[1] === 10) body = body.subarray(2);
        const line = body.indexOf('\r\n');
        if (line < 0) break;
        const size = parseInt(body.subarray(0, line).toString(), 16);
        if (body.length < line + 2 + size) break;
        text += body.subarray(line + 2, line + 2 + size).toString();
        body = body.subarray(line + 2 + size);
      }
      if (text === '') return;
      // A line may be split between chunks: the last 300 characters are scanned again with the next text.
      scan(tail + text);
      tail = text.slice(-300);
    });
    socket.on('error', reject);
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
  // A kept-alive connection the server closed as idle fails the request that reuses it: try again.
  let first: string | null = null;
  for (let tries = 0; first === null; tries++)
    first = await get('').catch((err: unknown) => {
      if (tries >= 2) throw err;
      return null;
    });
  let cursor = (JSON.parse(first) as { nextCursor: string | null }).nextCursor ?? '0';
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

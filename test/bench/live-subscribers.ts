// The subscribers of `npm run bench:live`: SSE streams, WebSockets and long-polls of the log stream, each
// noting when it first saw the batch line of each bench request (found by its request id, without parsing
// the JSON of every line).
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export type Kind = 'sse' | 'websocket' | 'long-poll';
export type Subscriber = { close: () => void };
/** Told (once a subscriber and request) that a subscriber got the line of bench request `n`. */
export type Seen = (n: number, at: number) => void;

/** Calls `seen` for every request id of this run (`bench-<run>-<n>`) in `bytes` not seen before by this
 *  subscriber (lines of earlier runs come with the history a subscriber starts with). Works on the bytes
 *  as they came (Buffer.indexOf of the id's prefix, then its digits), without decoding or a regular
 *  expression over every chunk: with the subscribers on one core, scanning 10,000 streams' text four times
 *  a second cost more CPU than the server's fan-out to them. */
function scanner(run: string, seen: Seen) {
  const got = new Set<number>();
  const prefix = Buffer.from(`"requestId":"bench-${run}-`);
  return (bytes: Buffer) => {
    const at = performance.now();
    for (let i = bytes.indexOf(prefix); i >= 0; i = bytes.indexOf(prefix, i + prefix.length)) {
      let n = 0;
      let j = i + prefix.length;
      for (let c = bytes[j]; c !== undefined && c >= 48 && c <= 57; c = bytes[++j]) n = n * 10 + (c - 48);
      if (bytes[j] !== 34) continue; // cut off by the end of these bytes: the kept tail has it next time
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

/** Bytes read from every subscriber's socket land here: `onread` hands them to a callback without a
 *  stream, an event or a Buffer a read, and each read is scanned before the next one (one thread). */
const readBuffer = Buffer.alloc(256 * 1024);
/** Longer than a request id's prefix and digits: the end of one read kept in front of the next. */
const KEEP = 64;

/** A raw socket (not node:http or the `ws` package): at 10,000 subscribers on one core, the client's
 *  parsing, streams and per-read Buffers cost more CPU than the server's fan-out, and a client that cannot
 *  keep up makes the server buffer and cut subscribers off, which measures the client. `request` is the
 *  HTTP request to send; the answer's head must start with `status`. After the head every read is scanned
 *  as it came: the chunked framing (SSE) and the frame headers (WebSocket) are not taken apart, since the
 *  server writes whole events in a chunk and a whole message in a frame, so neither falls inside a line;
 *  a line split between two reads is found in the kept end of one in front of the next. */
function rawStream(
  to: Target,
  request: string,
  status: string,
  scan: (bytes: Buffer) => void,
  opened: (socket: Socket) => void,
): Promise<Subscriber> {
  const { hostname, port } = new URL(to.base);
  return new Promise((resolve, reject) => {
    let head: Buffer | null = Buffer.alloc(0);
    let tail: Buffer = Buffer.alloc(0);
    const body = (bytes: Buffer) => {
      if (bytes.length === 0) return;
      if (tail.length > 0) scan(Buffer.concat([tail, bytes.subarray(0, KEEP)]));
      scan(bytes);
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - KEEP)));
    };
    const socket = connect({
      port: Number(port),
      host: hostname,
      onread: {
        buffer: readBuffer,
        callback: (n: number, buf: Uint8Array): boolean => {
          const bytes = Buffer.from(buf.buffer, buf.byteOffset, n);
          if (!head) return (body(bytes), true);
          head = Buffer.concat([head, bytes]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return true;
          const line = head.subarray(0, head.indexOf('\r\n')).toString();
          if (!line.startsWith(status)) {
            reject(new Error(`answered ${line}`));
            socket.destroy();
            return false;
          }
          const rest = head.subarray(end + 4);
          head = null;
          opened(socket);
          resolve({ close: () => socket.destroy() });
          body(rest);
          return true;
        },
      },
    });
    socket.on('connect', () => socket.write(request));
    socket.on('error', reject);
  });
}

function sse(to: Target, scan: (bytes: Buffer) => void): Promise<Subscriber> {
  const { hostname } = new URL(to.base);
  return rawStream(
    to,
    `GET /v2/projects/${to.project}/logs HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${to.token}\r\n` +
      'Accept: text/event-stream\r\n\r\n',
    'HTTP/1.1 200',
    scan,
    () => {},
  );
}

/** The server closes a WebSocket it has heard nothing from for its idle timeout (60 s, longer than a
 *  window with the connecting): each socket sends an empty ping, masked as a client must, this often. */
const PING_EVERY_MS = 20_000;
const ping = Buffer.from([0x89, 0x80, 1, 2, 3, 4]);

function socket(to: Target, scan: (bytes: Buffer) => void): Promise<Subscriber> {
  const { hostname, port } = new URL(to.base);
  let timer: NodeJS.Timeout | undefined;
  return rawStream(
    to,
    `GET /v2/projects/${to.project}/live HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${to.token}\r\n` +
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
    'HTTP/1.1 101',
    scan,
    (s) => {
      timer = setInterval(() => s.write(ping), PING_EVERY_MS);
      timer.unref();
      s.once('close', () => clearInterval(timer));
    },
  );
}

async function longPoll({ base, project, token }: Target, scan: (bytes: Buffer) => void): Promise<Subscriber> {
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
        scan(Buffer.from(text));
        cursor = /"nextCursor":"(\d+)"/.exec(text)?.[1] ?? cursor;
      } catch {
        if (!controller.signal.aborted) await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return { close: () => controller.abort() };
}

// Writes a Reply to a uWS response: every write corked, nothing written after an abort, streams
// paced by backpressure (onWritable) so a slow client never makes memory grow.
import type { HttpResponse } from 'uWebSockets.js';
import type { Reply } from '../routes/route.ts';
import { Backlog } from './backlog.ts';
import { writePush } from './push.ts';
import { statusLine } from './status.ts';

export type Header = readonly [name: string, value: string];

export type ResponseState = {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  status: number;
  onAbort: (() => void)[];
};

/** `streams`: where a push reply registers its end, for the server to call when it closes; `backlog`: the
 *  server's budget for what it holds for push readers that are behind (none given: unbounded). */
export type WriteOptions = {
  closeConnection?: boolean;
  headOnly?: boolean;
  streams?: Set<() => void>;
  backlog?: Backlog;
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes `reply`; `base` headers (request id, CORS) go first and a reply header of the same name wins. */
export async function writeReply(
  state: ResponseState,
  reply: Reply,
  base: readonly Header[],
  opts: WriteOptions = {},
): Promise<void> {
  if (state.aborted || state.done) return;
  const status = reply.status ?? 200;
  state.status = status;
  if (reply.stream) return writeStream(state, status, base, reply, reply.stream);
  if (reply.push && !opts.headOnly)
    return writePush(
      state,
      status,
      base,
      { ...reply, push: reply.push },
      opts.streams ?? new Set(),
      opts.backlog ?? new Backlog(Infinity),
      writeHeaders,
    );
  let body: string | Uint8Array | undefined;
  let contentType: string | undefined;
  if (reply.raw !== undefined) {
    body = reply.raw;
    contentType = reply.headers?.['Content-Type'] ?? reply.contentType ?? 'application/octet-stream';
  } else if (reply.json !== undefined) {
    body = JSON.stringify(reply.json);
    contentType = JSON_TYPE;
  }
  state.done = true;
  const { res } = state;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    writeHeaders(res, base, reply.headers, contentType);
    if (reply.cookies) for (const cookie of reply.cookies) res.writeHeader('Set-Cookie', cookie);
    if (opts.headOnly) res.endWithoutBody(body === undefined ? 0 : Buffer.byteLength(body), opts.closeConnection);
    else res.end(body ?? '', opts.closeConnection);
  });
}

/** Writes base, then own headers, then Content-Type, each name once, without building a merged object
 *  (this runs on every request). A given `contentType` replaces any Content-Type in `own`. */
function writeHeaders(
  res: HttpResponse,
  base: readonly Header[],
  own: Record<string, string> | undefined,
  contentType?: string,
): void {
  for (const [name, value] of base) if (own?.[name] === undefined) res.writeHeader(name, value);
  if (own)
    for (const name in own) if (contentType === undefined || name !== 'Content-Type') res.writeHeader(name, own[name]!);
  if (contentType !== undefined) res.writeHeader('Content-Type', contentType);
}

async function writeStream(
  state: ResponseState,
  status: number,
  base: readonly Header[],
  reply: Reply,
  stream: AsyncIterable<string | Uint8Array>,
): Promise<void> {
  const { res } = state;
  const iterator = stream[Symbol.asyncIterator]();
  // The first chunk is made before the status goes out: what a stream finds wrong before it has anything
  // to send (a bad cursor, a failed first statement) is then answered as an ordinary error, not a cut.
  let next = await iterator.next();
  if (state.aborted) return void (await iterator.return?.());
  state.done = true;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('Content-Type', reply.contentType ?? 'application/octet-stream');
    writeHeaders(res, base, reply.headers);
  });
  try {
    while (!next.done && !state.aborted) {
      let ok = true;
      const chunk = next.value;
      res.cork(() => (ok = res.write(chunk)));
      if (!ok) await drained(state);
      if (!state.aborted) next = await iterator.next();
    }
  } finally {
    await iterator.return?.();
  }
  if (!state.aborted) res.cork(() => res.end());
}

function drained(state: ResponseState): Promise<void> {
  return new Promise((resolve) => {
    state.onAbort.push(resolve);
    state.res.onWritable(() => {
      resolve();
      return true;
    });
  });
}

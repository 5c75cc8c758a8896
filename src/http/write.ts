// Writes a Reply to a uWS response: every write corked, nothing written after an abort, streams
// paced by backpressure (onWritable) so a slow client never makes memory grow.
import type { HttpResponse } from 'uWebSockets.js';
import type { Reply } from '../routes/route.ts';
import { statusLine } from './status.ts';

export type ResponseState = {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  status: number;
  onAbort: (() => void)[];
};

export async function writeReply(state: ResponseState, reply: Reply, closeConnection = false, headOnly = false): Promise<void> {
  if (state.aborted || state.done) return;
  const status = reply.status ?? 200;
  state.status = status;
  const headers = { ...reply.headers };
  let body: string | Uint8Array | undefined;
  if (reply.stream) return writeStream(state, status, headers, reply.contentType ?? 'application/octet-stream', reply.stream);
  if (reply.raw !== undefined) {
    body = reply.raw;
    headers['Content-Type'] ??= reply.contentType ?? 'application/octet-stream';
  } else if (reply.json !== undefined) {
    body = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  state.done = true;
  state.res.cork(() => {
    state.res.writeStatus(statusLine(status));
    for (const [k, v] of Object.entries(headers)) state.res.writeHeader(k, v);
    if (headOnly) state.res.endWithoutBody(body === undefined ? 0 : Buffer.byteLength(body), closeConnection);
    else state.res.end(body ?? '', closeConnection);
  });
}

async function writeStream(
  state: ResponseState,
  status: number,
  headers: Record<string, string>,
  contentType: string,
  stream: AsyncIterable<string | Uint8Array>,
): Promise<void> {
  const { res } = state;
  state.done = true;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('Content-Type', contentType);
    for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
  });
  const iterator = stream[Symbol.asyncIterator]();
  try {
    while (!state.aborted) {
      const next = await iterator.next();
      if (next.done || state.aborted) break;
      let ok = true;
      res.cork(() => (ok = res.write(next.value)));
      if (!ok) await drained(state);
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

// Push replies (Server-Sent Events): the route's producer writes to a sink whenever it has something, so one
// producer can feed thousands of responses without a promise or iterator per response and line. Every
// write is corked; a reader that is sent more than MAX_BEHIND bytes while the socket still holds what it
// refused (no write since was taken whole) is cut off (the connection closes, and an SSE client reconnects
// with Last-Event-ID), so a slow client never makes memory grow; so is one that is behind while the server's
// readers together hold more than its budget (src/http/backlog.ts), so many slow clients do not either.
import type { HttpResponse } from 'uWebSockets.js';
import type { PushSink, Reply } from '../reply.ts';
import type { Backlog } from './backlog.ts';
import { statusLine } from './status.ts';
import type { Header, ResponseState } from './write.ts';

export const MAX_BEHIND = 1024 * 1024;

/** Writes the head, hands the route a sink and resolves once the stream ends: the client left, the producer
 *  ended it, it was cut off, or `open`'s owner (the server, closing) called the end it registered there.
 *  The stream's count of bytes behind is its share of `backlog`, given back when it catches up or ends. */
export function writePush(
  state: ResponseState,
  status: number,
  base: readonly Header[],
  reply: Reply & { push: NonNullable<Reply['push']> },
  open: Set<() => void>,
  backlog: Backlog,
  writeHeaders: (res: HttpResponse, base: readonly Header[], own: Record<string, string> | undefined) => void,
): Promise<void> {
  const { res } = state;
  state.done = true;
  return new Promise((resolve) => {
    let ended = false;
    // Bytes written since the socket first refused some (null while it takes everything). The write it
    // refused first is not counted: a burst a fast reader drains at once is no reason to cut it off. Only
    // a write taken whole (uWS holds nothing more for this socket) clears it, not a writable event: uWS
    // reports one as soon as the kernel takes some bytes, with megabytes still buffered, so a client that
    // reads, but slower than it is sent, was never cut off and its buffer grew without bound.
    let behind: number | null = null;
    let cleanup: (() => void) | null = null;
    const runCleanup = () => {
      const c = cleanup;
      cleanup = null;
      c?.();
    };
    // Safe to call twice, and from inside the producer's own write loop. A cut-off closes the connection
    // at once, dropping what uWS still buffers for it.
    const finish = (cutOff: boolean) => {
      if (ended) return;
      ended = true;
      open.delete(end);
      if (behind) backlog.update(behind, 0);
      behind = null;
      if (!state.aborted && cutOff) res.close();
      else if (!state.aborted) res.cork(() => res.end());
      runCleanup();
      resolve();
    };
    const end = () => finish(false);
    state.onAbort.push(end);
    open.add(end);
    res.cork(() => {
      res.writeStatus(statusLine(status));
      res.writeHeader('Content-Type', reply.contentType ?? 'text/event-stream');
      writeHeaders(res, base, reply.headers);
    });
    const sink: PushSink = {
      write(text) {
        if (ended) return false;
        let ok = true;
        res.cork(() => (ok = res.write(text)));
        if (ok) {
          if (behind) backlog.update(behind, 0);
          behind = null;
          return true;
        }
        if (behind === null) {
          behind = 0;
          return true;
        }
        const overBudget = backlog.update(behind, behind + text.length);
        behind += text.length;
        if (behind <= MAX_BEHIND && !overBudget) return true;
        finish(true);
        return false;
      },
      end,
    };
    cleanup = reply.push(sink);
    if (ended) runCleanup();
  });
}

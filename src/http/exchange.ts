// One HTTP request in flight: its response state, the values the access log needs, and the ways it ends
// (a reply, an error, an abort), each logged once. Module functions over one object rather than closures
// made per request: those, and their allocation, showed in profiles of cheap reads.
import type { HttpResponse } from 'uWebSockets.js';
import { HttpError, statementTimedOut } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Reply } from '../routes/route.ts';
import type { Backlog } from './backlog.ts';
import { statusLine } from './status.ts';
import { writeReply, type Header, type ResponseState } from './write.ts';

/** Per server: the logger, the count of open exchanges that close() waits for, whether it is closing
 *  (every answer then ends its connection, so keep-alive clients go elsewhere instead of sending more), and
 *  the ends of the push streams open now (close() ends them at once), and the budget for what is held for
 *  live readers that are behind. */
export type ExchangeHost = {
  log: Logger;
  open: number;
  closing: boolean;
  streams: Set<() => void>;
  backlog: Backlog;
};

export type Exchange = {
  host: ExchangeHost;
  state: ResponseState;
  method: string;
  path: string;
  requestId: string;
  started: number;
  /** Written on every answer: the request id and CORS headers. */
  base: Header[];
  controller: AbortController | undefined;
  /** Close the connection after the answer (the body was not read to its end). */
  close: boolean;
};

export function openExchange(
  host: ExchangeHost,
  res: HttpResponse,
  method: string,
  path: string,
  requestId: string,
  base: Header[],
): Exchange {
  const x: Exchange = {
    host,
    method,
    path,
    requestId,
    base,
    started: performance.now(),
    controller: undefined,
    close: false,
    state: { res, aborted: false, done: false, status: 0, onAbort: [] },
  };
  res.onAborted(() => abort(x));
  host.open++;
  return x;
}

/** The request's AbortSignal, made on first read: few handlers need one. */
export function signalOf(x: Exchange): AbortSignal {
  if (!x.controller) {
    x.controller = new AbortController();
    if (x.state.aborted) x.controller.abort();
  }
  return x.controller.signal;
}

/** Writes the route's reply (null: the client left while sending the body), or the error it threw. */
export async function answer(x: Exchange, reply: Promise<Reply | null>, headOnly: boolean): Promise<void> {
  try {
    const r = await reply;
    if (r)
      await writeReply(x.state, r, x.base, {
        headOnly,
        closeConnection: x.host.closing,
        streams: x.host.streams,
        backlog: x.host.backlog,
      });
  } catch (err) {
    await fail(x, err).catch((writeErr: unknown) =>
      x.host.log.error('could not write a response', { requestId: x.requestId, err: writeErr }),
    );
  } finally {
    finish(x);
  }
}

/** Answers an error found before the route runs (no route, bad method, body too large), or one thrown
 *  unexpectedly by the HTTP layer itself (a logged 500). Never rejects: its callers do not wait for it. */
export async function refuse(x: Exchange, err: unknown, close = false): Promise<void> {
  try {
    await fail(x, err, close);
  } catch (writeErr) {
    x.host.log.error('could not write a response', { requestId: x.requestId, err: writeErr });
  } finally {
    finish(x);
  }
}

/** Answers with no body and extra headers (preflights). */
export async function answerEmpty(x: Exchange, status: number, extra: readonly Header[]): Promise<void> {
  try {
    await writeReply(x.state, { status }, [...x.base, ...extra]);
  } catch (writeErr) {
    x.host.log.error('could not write a response', { requestId: x.requestId, err: writeErr });
  } finally {
    finish(x);
  }
}

/** A bodiless status for a connection no exchange was opened on (the request could not even be read), then
 *  the connection closed. The response may already be gone: nothing is left to tell then. */
export function answerBare(res: HttpResponse, status: number): void {
  try {
    res.cork(() => res.writeStatus(statusLine(status)).end('', true));
  } catch {
    // The client left.
  }
}

/** An HttpError as its status and body; anything else is logged and becomes a 500 quoting the request id. */
function fail(x: Exchange, err: unknown, close = false): Promise<void> {
  if (x.state.done) return Promise.resolve(cut(x, err));
  const timedOut = err instanceof HttpError ? null : statementTimedOut(err);
  const e = err instanceof HttpError ? err : timedOut;
  // A read whose client left stops by throwing (src/query/read-signal.ts): nobody is told, and it is no bug.
  if (!(err instanceof HttpError) && x.state.aborted)
    x.host.log.info('stopped: the client left', { requestId: x.requestId, path: x.path });
  else if (timedOut) x.host.log.warn('statement timeout', { requestId: x.requestId, method: x.method, path: x.path });
  else if (!e) x.host.log.error('unhandled error', { requestId: x.requestId, method: x.method, path: x.path, err });
  const httpError =
    e ?? new HttpError('INTERNAL', `Something went wrong. Quote request id ${x.requestId} when reporting it.`);
  return writeReply(
    x.state,
    { status: httpError.status, headers: httpError.headers, json: httpError.toBody(x.requestId) },
    x.base,
    {
      closeConnection: close || x.close || httpError.status === 413 || x.host.closing,
    },
  );
}

/** An error after the status line went out (a stream that threw): the status cannot change, and ending the
 *  body normally would pass a truncated export off as whole, so the connection is closed: the client sees
 *  the body cut off (chunked encoding without its last chunk). */
function cut(x: Exchange, err: unknown): void {
  if (x.state.aborted)
    return void x.host.log.info('stopped: the client left', { requestId: x.requestId, path: x.path });
  x.host.log.error('a streamed answer failed after its status was sent; the connection is closed', {
    requestId: x.requestId,
    method: x.method,
    path: x.path,
    err,
  });
  x.state.aborted = true; // nothing more may be written to it
  x.state.res.close();
}

/** Runs inside uWS's onAborted callback, where a throw would end the process: each listener is guarded. */
function abort(x: Exchange): void {
  x.state.aborted = true;
  try {
    x.controller?.abort();
  } catch (err) {
    x.host.log.error('an abort listener threw', { requestId: x.requestId, err });
  }
  for (const f of x.state.onAbort) {
    try {
      f();
    } catch (err) {
      x.host.log.error('an abort listener threw', { requestId: x.requestId, err });
    }
  }
}

function finish(x: Exchange): void {
  x.host.open--;
  const { state } = x;
  if (x.host.log.enabled('info'))
    x.host.log.info('request', {
      requestId: x.requestId,
      method: x.method,
      path: x.path,
      status: state.aborted && !state.done ? 499 : state.status,
      ms: Math.round((performance.now() - x.started) * 100) / 100,
    });
}

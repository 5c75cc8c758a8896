// One HTTP request in flight: its response state, the values the access log needs, and the ways it ends
// (a reply, an error, an abort), each logged once. Module functions over one object rather than closures
// made per request: those, and their allocation, showed in profiles of cheap reads.
import type { HttpResponse } from 'uWebSockets.js';
import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Reply } from '../routes/route.ts';
import { writeReply, type Header, type ResponseState } from './write.ts';

/** Per server: the logger, the count of open exchanges that close() waits for, and whether it is closing
 *  (every answer then ends its connection, so keep-alive clients go elsewhere instead of sending more). */
export type ExchangeHost = { log: Logger; open: number; closing: boolean };

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
};

export function openExchange(
  host: ExchangeHost,
  res: HttpResponse,
  method: string,
  path: string,
  requestId: string,
  base: Header[],
): Exchange {
  const exchange: Exchange = {
    host,
    method,
    path,
    requestId,
    base,
    started: performance.now(),
    controller: undefined,
    state: { res, aborted: false, done: false, status: 0, onAbort: [] },
  };
  res.onAborted(() => abort(exchange));
  host.open++;
  return exchange;
}

/** The request's AbortSignal, made on first read: few handlers need one. */
export function signalOf(exchange: Exchange): AbortSignal {
  if (!exchange.controller) {
    exchange.controller = new AbortController();
    if (exchange.state.aborted) exchange.controller.abort();
  }
  return exchange.controller.signal;
}

/** Writes the route's reply (null: the client left while sending the body), or the error it threw. */
export async function answer(exchange: Exchange, reply: Promise<Reply | null>, headOnly: boolean): Promise<void> {
  try {
    const r = await reply;
    if (r) await writeReply(exchange.state, r, exchange.base, { headOnly, closeConnection: exchange.host.closing });
  } catch (err) {
    await fail(exchange, err).catch((writeErr: unknown) =>
      exchange.host.log.error('could not write a response', { requestId: exchange.requestId, err: writeErr }),
    );
  } finally {
    finish(exchange);
  }
}

/** Answers an error found before the route runs (no route, bad method, body too large). */
export async function refuse(exchange: Exchange, err: HttpError): Promise<void> {
  try {
    await fail(exchange, err);
  } finally {
    finish(exchange);
  }
}

/** Answers with no body and extra headers (preflights). */
export async function answerEmpty(exchange: Exchange, status: number, extra: readonly Header[]): Promise<void> {
  try {
    await writeReply(exchange.state, { status }, [...exchange.base, ...extra]);
  } finally {
    finish(exchange);
  }
}

/** An HttpError as its status and body; anything else is logged and becomes a 500 quoting the request id. */
function fail(exchange: Exchange, err: unknown): Promise<void> {
  const e = err instanceof HttpError ? err : null;
  if (!e)
    exchange.host.log.error('unhandled error', {
      requestId: exchange.requestId,
      method: exchange.method,
      path: exchange.path,
      err,
    });
  const httpError =
    e ?? new HttpError('INTERNAL', `Something went wrong. Quote request id ${exchange.requestId} when reporting it.`);
  return writeReply(
    exchange.state,
    { status: httpError.status, headers: httpError.headers, json: httpError.toBody(exchange.requestId) },
    exchange.base,
    {
      closeConnection: httpError.status === 413 || exchange.host.closing,
    },
  );
}

function abort(exchange: Exchange): void {
  exchange.state.aborted = true;
  exchange.controller?.abort();
  for (const f of exchange.state.onAbort) f();
}

function finish(exchange: Exchange): void {
  exchange.host.open--;
  const { state } = exchange;
  if (exchange.host.log.enabled('info'))
    exchange.host.log.info('request', {
      requestId: exchange.requestId,
      method: exchange.method,
      path: exchange.path,
      status: state.aborted && !state.done ? 499 : state.status,
      ms: Math.round((performance.now() - exchange.started) * 100) / 100,
    });
}

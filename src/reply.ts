// A handler's answer when it is not plain JSON with status 200: a status, headers, raw bytes or a stream.
// Shared by the routes that declare it, src/query/export that streams it and src/http that writes it.

/** Where a push reply writes: `write` answers false once the stream is over (the client left, was cut off
 *  for reading too slowly, or the server is closing); `end` ends it. */
export type PushSink = { write: (text: string | Uint8Array) => boolean; end: () => void };

/** A non-JSON or non-200 answer. `stream` chunks are written with backpressure. `push` gets a sink to
 *  write to whenever it likes (one producer feeding many responses) and answers its cleanup, run once
 *  however the stream ends. */
export type Reply = {
  status?: number;
  headers?: Record<string, string>;
  /** Set-Cookie values, one a cookie (a header map holds one value a name). */
  cookies?: string[];
  json?: unknown;
  raw?: string | Uint8Array;
  stream?: AsyncIterable<string | Uint8Array>;
  push?: (sink: PushSink) => () => void;
  contentType?: string;
};

export const isReply = (x: unknown): x is Reply & { __reply: true } =>
  typeof x === 'object' && x !== null && (x as { __reply?: boolean }).__reply === true;

export const reply = (r: Reply): Reply => Object.assign(r, { __reply: true });

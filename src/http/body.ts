// Reads a request body with a size limit. Must be called before the handler's first await: uWS
// delivers data only to an onData registered synchronously, and each chunk is reused once the callback returns.
import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/** `onAbort` registers a callback for the request's abort (the server keeps one list per request). Once
 *  `control.discard` is set (the caller was refused) the chunks still arriving are dropped, not kept. */
export function readBody(
  res: HttpResponse,
  limit: number,
  onAbort: (f: () => void) => void,
  control: { discard: boolean } = { discard: false },
): Promise<BodyResult> {
  // No named closure (`const settle = …`) in here: tsx keeps function names, so making one costs a
  // defineProperty of its name on every request.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    onAbort(() => {
      if (!settled) ((settled = true), resolve(ABORTED));
    });
    res.onData((chunk, isLast) => {
      if (settled) return;
      if (control.discard) return void ((settled = true), resolve(ABORTED));
      size += chunk.byteLength;
      if (size > limit) return void ((settled = true), resolve(TOO_LARGE));
      // A copy of the chunk (uWS reuses it): Buffer.from of a view copies a small chunk into Node's pool,
      // where chunk.slice(0) would make an ArrayBuffer of its own every time, several times slower.
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast)
        ((settled = true),
          resolve({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }));
    });
  });
}

const ABORTED: BodyResult = Object.freeze({ ok: false, reason: 'aborted' });
const TOO_LARGE: BodyResult = Object.freeze({ ok: false, reason: 'too-large' });

/** `\u`, the start of every JSON escape by code point. */
const UNICODE_ESCAPE = Buffer.from('\\u');

/** Parses a body by content type: JSON, or text/plain holding JSON (what navigator.sendBeacon sends).
 *  `unicodeEscapes` is false when the body holds no `\u` escape: then no string in the value holds U+0000
 *  or an unpaired surrogate, since JSON.parse makes them only from such escapes (JSON refuses a raw control
 *  character, and the UTF-8 decoder replaces every ill-formed byte sequence with U+FFFD). */
export function parseBody(
  bytes: Buffer,
  contentType: string | undefined,
): { ok: true; value: unknown; unicodeEscapes: boolean } | { ok: false; status: 400 | 415; message: string } {
  if (bytes.length === 0) return { ok: true, value: undefined, unicodeEscapes: false };
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'text/plain' && !type.endsWith('+json')) {
    return { ok: false, status: 415, message: 'Send the body as application/json (or text/plain holding JSON).' };
  }
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')), unicodeEscapes: bytes.includes(UNICODE_ESCAPE) };
  } catch (err) {
    return { ok: false, status: 400, message: `The body is not valid JSON: ${(err as Error).message}` };
  }
}

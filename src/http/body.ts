// Reads a request body with a size limit. Must be called before the handler's first await: uWS
// delivers data only to an onData registered synchronously, and each chunk is reused once the callback returns.
import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/** `onAbort` registers a callback for the request's abort (the server keeps one list per request). */
export function readBody(res: HttpResponse, limit: number, onAbort: (f: () => void) => void): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    onAbort(() => settle({ ok: false, reason: 'aborted' }));
    res.onData((chunk, isLast) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > limit) return settle({ ok: false, reason: 'too-large' });
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) settle({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    });
  });
}

/** Parses a body by content type: JSON, or text/plain holding JSON (what navigator.sendBeacon sends). */
export function parseBody(bytes: Buffer, contentType: string | undefined):
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 415; message: string } {
  if (bytes.length === 0) return { ok: true, value: undefined };
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'text/plain' && !type.endsWith('+json')) {
    return { ok: false, status: 415, message: 'Send the body as application/json (or text/plain holding JSON).' };
  }
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch (err) {
    return { ok: false, status: 400, message: `The body is not valid JSON: ${(err as Error).message}` };
  }
}

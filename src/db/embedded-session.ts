// The embedded database is one session shared by every connection to its socket (the server's and the
// CLI's). This wrapper gives the socket server what sharing needs: one connection's extended-protocol
// exchange (Parse … Sync) runs whole before another's starts, and NOTIFY reaches the owner's listeners.
import type { PGlite } from '@electric-sql/pglite';

type RawStream = PGlite['execProtocolRawStream'];
export type Notification = { channel: string; payload: string };

/** Messages after which a connection's exchange is complete: Sync, a simple Query, Terminate. */
const ENDS_EXCHANGE = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0), 'X'.charCodeAt(0)]);
const NOTIFICATION = 'A'.charCodeAt(0);

/** `db` as the socket server should see it. The server's queue keeps to one connection while the session
 *  is "in a transaction": between a Parse and its Sync it is told so too, as interleaved messages from
 *  two connections lose each other's unnamed statements and portals. */
export function shareSession(db: PGlite, onNotification: (n: Notification) => void): PGlite {
  let open = false;
  const execProtocolRawStream: RawStream = (message, options) => {
    // A start-up packet opens with its length (first byte 0): it is an exchange of its own.
    open = message[0] !== 0 && !ENDS_EXCHANGE.has(message[0]!);
    return db.execProtocolRawStream(message, {
      ...options,
      onRawData: tapNotifications(options.onRawData, onNotification),
    });
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'execProtocolRawStream') return execProtocolRawStream;
      if (prop === 'isInTransaction') return () => open || target.isInTransaction();
      if (prop === 'exec') {
        // The queue rolls back a departed connection's transaction with exec: its exchange is over too.
        return (...args: Parameters<PGlite['exec']>) => ((open = false), target.exec(...args));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Passes every byte on, and reads NotificationResponse messages out of the stream (which may split a
 *  message anywhere): other messages are skipped by their length, never copied. */
function tapNotifications(
  forward: (data: Uint8Array) => void,
  onNotification: (n: Notification) => void,
): (data: Uint8Array) => void {
  let head = Buffer.alloc(0); // a message's type and length, while incomplete
  let skip = 0; // bytes of a message that is not a notification, still to come
  let body: Buffer[] | null = null; // a notification's body, while incomplete
  let need = 0;
  return (data) => {
    forward(data);
    const chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        ((skip -= n), (i += n));
      } else if (body) {
        const n = Math.min(need, chunk.length - i);
        body.push(Buffer.from(chunk.subarray(i, i + n)));
        ((need -= n), (i += n));
        if (need === 0) (onNotification(readNotification(Buffer.concat(body))), (body = null));
      } else {
        const n = Math.min(5 - head.length, chunk.length - i);
        head = Buffer.concat([head, chunk.subarray(i, i + n)]);
        i += n;
        if (head.length < 5) break;
        const length = head.readInt32BE(1) - 4;
        if (head[0] === NOTIFICATION) ((body = []), (need = length));
        else skip = length;
        head = Buffer.alloc(0);
        if (body && need === 0) (onNotification(readNotification(Buffer.alloc(0))), (body = null));
      }
    }
  };
}

/** NotificationResponse body: Int32 sender pid, channel\0, payload\0. */
function readNotification(b: Buffer): Notification {
  const end = b.indexOf(0, 4);
  return { channel: b.toString('utf8', 4, end), payload: b.toString('utf8', end + 1, Math.max(end + 1, b.length - 1)) };
}

// PostgreSQL's frontend/backend protocol (version 3.0), the few messages the flush writer sends and reads.
// It encodes a whole pipeline into one list of buffers (sent with one writev) and splits what the server
// answers into messages; it knows nothing of sockets, statements or transactions (connection.ts does).

const EMPTY = Buffer.alloc(0);

/** Frontend messages, appended in order. Small ones share one growing buffer; a large payload (COPY data)
 *  becomes a chunk of its own instead of being copied in. */
export class Outgoing {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(8 * 1024);
  private at = 0;

  /** P: a named prepared statement, its parameter types left to the server. */
  parse(name: string, text: string): this {
    const start = this.begin(0x50);
    this.cstring(name).cstring(text).int16(0);
    return this.end(start);
  }

  /** B: binds the unnamed portal to a prepared statement, every parameter and result in text form. */
  bind(statement: string, params: readonly (string | null)[]): this {
    const start = this.begin(0x42);
    this.cstring('').cstring(statement).int16(0).int16(params.length);
    for (const p of params) {
      if (p === null) {
        this.int32(-1);
        continue;
      }
      const at = this.at;
      this.int32(0);
      const bytes = this.utf8(p);
      this.buf.writeInt32BE(bytes, at);
    }
    this.int16(0);
    return this.end(start);
  }

  /** D: asks for a prepared statement's parameter and row descriptions. */
  describe(name: string): this {
    const start = this.begin(0x44);
    this.ensure(1);
    this.buf[this.at++] = 0x53; // 'S': a statement
    this.cstring(name);
    return this.end(start);
  }

  /** E: runs the unnamed portal to completion. */
  execute(): this {
    const start = this.begin(0x45);
    this.cstring('').int32(0);
    return this.end(start);
  }

  /** d: one COPY data message; a Buffer payload is sent as it is, not copied. */
  copyData(data: Buffer | string): this {
    if (typeof data === 'string') {
      const start = this.begin(0x64);
      this.utf8(data);
      return this.end(start);
    }
    this.ensure(5);
    this.buf[this.at] = 0x64;
    this.buf.writeInt32BE(4 + data.length, this.at + 1);
    this.at += 5;
    this.cut();
    this.chunks.push(data);
    return this;
  }

  /** c: the end of COPY data. */
  copyDone(): this {
    return this.end(this.begin(0x63));
  }

  /** S: ends the pipeline; without an explicit BEGIN, everything since the last Sync commits here. */
  sync(): this {
    return this.end(this.begin(0x53));
  }

  /** X: the connection is about to close. */
  terminate(): this {
    return this.end(this.begin(0x58));
  }

  /** p: a password in clear text or MD5-hashed (null-terminated). */
  password(text: string): this {
    const start = this.begin(0x70);
    this.cstring(text);
    return this.end(start);
  }

  /** p: SASLInitialResponse, the mechanism chosen and the client's first message. */
  saslInitial(mechanism: string, data: string): this {
    const start = this.begin(0x70);
    this.cstring(mechanism).int32(Buffer.byteLength(data));
    this.utf8(data);
    return this.end(start);
  }

  /** p: SASLResponse, the client's next message as it is (not null-terminated). */
  saslResponse(data: string): this {
    const start = this.begin(0x70);
    this.utf8(data);
    return this.end(start);
  }

  /** The buffers to write, in order; the builder starts empty again (and allocates only if used again). */
  take(): Buffer[] {
    this.cut();
    const out = this.chunks;
    this.chunks = [];
    this.buf = EMPTY;
    this.at = 0;
    return out;
  }

  private begin(type: number): number {
    this.ensure(5);
    const start = this.at;
    this.buf[start] = type;
    this.at += 5;
    return start;
  }

  private end(start: number): this {
    this.buf.writeInt32BE(this.at - start - 1, start + 1);
    return this;
  }

  private cstring(s: string): this {
    this.utf8(s);
    this.ensure(1);
    this.buf[this.at++] = 0;
    return this;
  }

  private utf8(s: string): number {
    this.ensure(s.length * 3);
    const n = this.buf.write(s, this.at, 'utf8');
    this.at += n;
    return n;
  }

  private int16(n: number): this {
    this.ensure(2);
    this.at = this.buf.writeInt16BE(n, this.at);
    return this;
  }

  private int32(n: number): this {
    this.ensure(4);
    this.at = this.buf.writeInt32BE(n, this.at);
    return this;
  }

  /** Keeps what is written so far as a chunk; new messages go to a fresh buffer. */
  private cut(): void {
    if (this.at === 0) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.buf = this.buf.subarray(this.at);
    this.at = 0;
    if (this.buf.length < 1024) this.buf = EMPTY;
  }

  private ensure(n: number): void {
    if (this.buf.length - this.at >= n) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n, 8 * 1024));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

/** The startup packet (no type byte): protocol 3.0 and the session's parameters. */
export function startupMessage(params: Record<string, string>): Buffer {
  let body = '';
  for (const [k, v] of Object.entries(params)) body += `${k}\0${v}\0`;
  const bytes = Buffer.from(`${body}\0`);
  const out = Buffer.allocUnsafe(8 + bytes.length);
  out.writeInt32BE(out.length, 0);
  out.writeInt32BE(196_608, 4);
  bytes.copy(out, 8);
  return out;
}

/** SSLRequest: asks to switch to TLS before the startup packet. */
export const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

/** A backend message: its type byte and its body (without type and length). */
export type BackendMessage = { type: number; body: Buffer };

/** Splits the byte stream from the server into messages; a message may arrive across several reads. */
export class Incoming {
  private pending: Buffer | null = null;

  /** Appends what the socket delivered and calls `each` for every whole message in it. Throws on a length
   *  no message can have (the stream is not PostgreSQL's, or out of step). */
  push(data: Buffer, each: (m: BackendMessage) => void): void {
    const buf = this.pending ? Buffer.concat([this.pending, data]) : data;
    let at = 0;
    while (buf.length - at >= 5) {
      const length = buf.readInt32BE(at + 1);
      if (length < 4) throw new Error(`a backend message of impossible length ${length}`);
      if (buf.length - at < 1 + length) break;
      each({ type: buf[at]!, body: buf.subarray(at + 5, at + 1 + length) });
      at += 1 + length;
    }
    // A copy: the socket's buffer is not ours to keep.
    this.pending = at === buf.length ? null : Buffer.from(buf.subarray(at));
  }
}

/** D: a row's values in text form (null for SQL NULL). */
export function dataRow(body: Buffer): (string | null)[] {
  const n = body.readInt16BE(0);
  const row: (string | null)[] = new Array(n);
  let at = 2;
  for (let i = 0; i < n; i++) {
    const length = body.readInt32BE(at);
    at += 4;
    if (length < 0) row[i] = null;
    else ((row[i] = body.toString('utf8', at, at + length)), (at += length));
  }
  return row;
}

/** A result column: its name and its type's oid. */
export type Column = { name: string; type: number };

/** T: the columns of a statement's rows. */
export function rowDescription(body: Buffer): Column[] {
  const n = body.readInt16BE(0);
  const columns: Column[] = [];
  let at = 2;
  for (let i = 0; i < n; i++) {
    const [name, next] = cstringAt(body, at);
    columns.push({ name, type: body.readInt32BE(next + 6) }); // after the table oid and the column number
    at = next + 18;
  }
  return columns;
}

/** E and N: the fields of an error or notice by their one-letter codes (C code, M message, D detail, …). */
export function errorFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    fields[String.fromCharCode(body[at]!)] = body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return fields;
}

/** A null-terminated string at the start of a body, and where the next field begins. */
export function cstringAt(body: Buffer, at = 0): [string, number] {
  const end = body.indexOf(0, at);
  return [body.toString('utf8', at, end), end + 1];
}

// One connection of the flush writer: a minimal PostgreSQL frontend that sends a whole group commit as one
// pipeline in one write: extended-protocol statements and COPY data back to back, ended by one Sync, which
// PostgreSQL runs as one implicit transaction (committed at the Sync, rolled back whole on any error). The
// `postgres` client cannot send COPY data in the same write as the statements around it; a flush through
// it took four round trips, and the backend sat idle in its transaction for most of each (docs/sql.md,
// "The write path"). This speaks only what that needs: start-up, TLS (with the host's name for SNI),
// password authentication, Parse and Describe once per connection, then Bind/Execute/CopyData/Sync, every
// value as text.
import net from 'node:net';
import tls from 'node:tls';
import { md5Password, scramClient } from './auth.ts';
import {
  Incoming,
  Outgoing,
  SSL_REQUEST,
  cstringAt,
  dataRow,
  rowDescription,
  errorFields,
  startupMessage,
  type BackendMessage,
  type Column,
} from './messages.ts';

/** How to reach the server: the `postgres` client's own parsed options (sql.options), so both connect alike. */
export type WireOptions = {
  host: string;
  port: number;
  /** A Unix socket's path, when the host is a directory. */
  path?: string | false;
  database: string;
  user: string;
  password: string | (() => string | Promise<string>);
  /** The client's `ssl`: false, 'prefer', 'allow', 'require', 'verify-full', true, or TLS options. */
  ssl: unknown;
  /** Start-up parameters (the session's run-time settings). */
  params: Record<string, string>;
  connectTimeoutMs?: number;
};

/** One statement of a pipeline: a prepared statement's name, its parameters, and for a COPY … FROM STDIN
 *  its data. */
export type Step = { statement: string; params?: readonly (string | null)[]; copy?: Buffer | string };
/** A statement's command tag ('INSERT 0 3', 'COPY 500', …), rows (values in text form) and their columns. */
export type StepResult = { command: string; rows: (string | null)[][]; columns: Column[] };

/** An error the server reported (its SQLSTATE in `code`), or the connection's own ('CONNECTION_CLOSED',
 *  'PROTOCOL'). `unsent`: nothing of the pipeline reached the server, so nothing of it can have committed. */
export class WireError extends Error {
  readonly code: string;
  readonly detail: string | undefined;
  /** Named as the `postgres` client names it, so callers read both clients' errors alike. */
  readonly constraint_name: string | undefined;
  unsent = false;
  constructor(fields: Record<string, string>) {
    super(fields.M ?? 'unknown error');
    this.name = 'WireError';
    this.code = fields.C ?? 'XX000';
    this.detail = fields.D;
    this.constraint_name = fields.n;
  }
}

/** The error as one whose pipeline never reached the server. */
export function unsent(err: unknown): WireError {
  const e = err instanceof WireError ? err : new WireError({ C: 'CONNECTION_FAILED', M: (err as Error).message });
  e.unsent = true;
  return e;
}

const noop = () => {};

const closedError = (why: string) =>
  new WireError({ C: 'CONNECTION_CLOSED', M: `the flush writer's connection closed: ${why}` });

type Pipeline = {
  /** The prepared statements run, in order (none at start-up). */
  statements: readonly string[];
  results: StepResult[];
  rows: (string | null)[][];
  error: WireError | null;
  resolve: (r: StepResult[]) => void;
  reject: (e: Error) => void;
};

export class WireConnection {
  private readonly incoming = new Incoming();
  private readonly pipelines: Pipeline[] = [];
  /** Settles when every pipeline sent so far has been answered: pipelines are answered in order (and all
   *  fail together when the connection does), so the last one sent settles last. It holds no results. */
  private drained: Promise<void> = Promise.resolve();
  private closedBy: WireError | null = null;
  /** The prepared statements' result columns, in the order described at start-up (empty: no rows). */
  private readonly described: Column[][] = [];
  private columnsOf = new Map<string, Column[]>();

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      try {
        this.incoming.push(data, (m) => this.message(m));
      } catch (err) {
        this.fail(new WireError({ C: 'PROTOCOL', M: `could not read the server's answer: ${(err as Error).message}` }));
      }
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(closedError('the socket closed')));
  }

  /** Connects, authenticates and prepares `statements` (name → SQL) on the new session. */
  static async open(o: WireOptions, statements: Record<string, string>): Promise<WireConnection> {
    const ms = o.connectTimeoutMs ?? 30_000;
    const made: { socket?: net.Socket } = {};
    const timer = setTimeout(() => made.socket?.destroy(closedError(`no session within ${ms} ms`)), ms);
    let socket: net.Socket;
    try {
      socket = await connect(o, (s) => (made.socket = s));
      await startup(socket, o);
    } catch (err) {
      made.socket?.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const c = new WireConnection(socket);
    const out = new Outgoing();
    for (const [name, text] of Object.entries(statements)) out.parse(name, text).describe(name);
    try {
      await c.send(out.sync());
      c.columnsOf = new Map(Object.keys(statements).map((name, i) => [name, c.described[i] ?? []]));
    } catch (err) {
      c.fail(err as Error);
      throw err;
    }
    return c;
  }

  /** The columns of a prepared statement's rows (names and type oids), as the server described them. */
  columns(statement: string): Column[] {
    return this.columnsOf.get(statement) ?? [];
  }

  get closed(): boolean {
    return this.closedBy !== null;
  }

  /** Sends the steps and one Sync in one write: one transaction. Resolves with each step's result once the
   *  server has committed; rejects with the first error, and then nothing of the pipeline is kept. Several
   *  pipelines may be in flight: they run, and are answered, in the order sent. */
  run(steps: readonly Step[]): Promise<StepResult[]> {
    const out = new Outgoing();
    for (const s of steps) {
      out.bind(s.statement, s.params ?? []).execute();
      if (s.copy !== undefined) out.copyData(s.copy).copyDone();
    }
    return this.send(
      out.sync(),
      steps.map((s) => s.statement),
    );
  }

  /** Ends the session once the pipelines in flight are answered, or after `graceMs` regardless (what is
   *  still in flight then fails: a server gone silent must not hold up a shutdown). */
  async close(graceMs = 5_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.drained, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    if (this.closedBy) return;
    if (this.pipelines.length > 0) return this.fail(closedError(`no answer within ${graceMs} ms of closing`));
    this.closedBy = closedError('closed by Loupe');
    this.socket.end(Buffer.concat(new Outgoing().terminate().take()));
  }

  private send(out: Outgoing, statements: readonly string[] = []): Promise<StepResult[]> {
    if (this.closedBy) return Promise.reject(unsent(closedError(this.closedBy.message)));
    const answered = new Promise<StepResult[]>((resolve, reject) => {
      this.pipelines.push({ statements, results: [], rows: [], error: null, resolve, reject });
    });
    this.drained = answered.then(noop, noop);
    this.socket.cork();
    for (const chunk of out.take()) this.socket.write(chunk);
    this.socket.uncork();
    return answered;
  }

  private message({ type, body }: BackendMessage): void {
    if (type === 0x4e || type === 0x53 || type === 0x41) return; // notice, parameter status, notification
    const p = this.pipelines[0];
    if (!p) {
      // An error out of turn is the server ending the session (a terminated backend, a shutdown).
      return this.fail(
        type === 0x45
          ? new WireError(errorFields(body))
          : new WireError({
              C: 'PROTOCOL',
              M: `unexpected message '${String.fromCharCode(type)}' with nothing in flight`,
            }),
      );
    }
    switch (type) {
      case 0x44: // D: a row
        p.rows.push(dataRow(body));
        break;
      case 0x43: // C: a statement completed
      case 0x49: // I: an empty statement
        p.results.push({
          command: type === 0x43 ? cstringAt(body)[0] : '',
          rows: p.rows,
          columns: this.columns(p.statements[p.results.length] ?? ''),
        });
        p.rows = [];
        break;
      case 0x54: // T: a prepared statement's row description (start-up only)
        this.described.push(rowDescription(body));
        break;
      case 0x6e: // n: a prepared statement without rows (start-up only)
        this.described.push([]);
        break;
      case 0x45: // E: the server skips to the Sync and rolls the transaction back
        p.error ??= new WireError(errorFields(body));
        break;
      case 0x5a: // Z: ready again, the pipeline is over
        this.pipelines.shift();
        if (p.error) p.reject(p.error);
        else p.resolve(p.results);
        break;
      default: // ParseComplete, BindComplete, CopyInResponse, NoData: progress, nothing to keep
        break;
    }
  }

  private fail(err: Error): void {
    this.closedBy ??= err instanceof WireError ? err : closedError(err.message);
    this.socket.destroy();
    // A pipeline the server already answered with an error (a terminated backend says why) fails with it.
    for (const p of this.pipelines.splice(0)) p.reject(p.error ?? this.closedBy);
  }
}

/** A plain or TLS socket to the server, as the client's options say; `opened` is told of each socket made,
 *  so a deadline can end it. */
async function connect(o: WireOptions, opened: (s: net.Socket) => void): Promise<net.Socket> {
  const socket = o.path
    ? net.connect({ path: o.path })
    : net.connect({ host: o.host, port: o.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 });
  opened(socket);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    if (!o.ssl) return socket;
    const secured = await secure(socket, o);
    opened(secured);
    return secured;
  } catch (err) {
    socket.destroy();
    throw err;
  }
}

/** SSLRequest, then TLS as postgres.js does it: only 'prefer' goes on in plain text when the server has no
 *  TLS; 'require', 'allow' and 'prefer' do not verify the certificate; 'verify-full' and true do. */
async function secure(socket: net.Socket, o: WireOptions): Promise<net.Socket> {
  socket.write(SSL_REQUEST);
  const answer = await new Promise<Buffer>((resolve, reject) => {
    socket.once('data', resolve);
    socket.once('error', reject);
  });
  if (answer.length !== 1)
    throw new WireError({ C: 'PROTOCOL', M: 'the server answered the TLS request with more than one byte' });
  if (answer[0] !== 0x53) {
    if (o.ssl === 'prefer') return socket;
    throw new WireError({ C: '08004', M: 'the server does not offer TLS, which the connection settings require' });
  }
  const options: tls.ConnectionOptions = { socket, servername: net.isIP(o.host) ? undefined : o.host };
  if (o.ssl === 'require' || o.ssl === 'allow' || o.ssl === 'prefer') options.rejectUnauthorized = false;
  else if (typeof o.ssl === 'object' && o.ssl !== null) Object.assign(options, o.ssl);
  const secured = tls.connect(options);
  await new Promise<void>((resolve, reject) => {
    secured.once('secureConnect', resolve);
    secured.once('error', reject);
  });
  return secured;
}

/** The start-up packet, authentication, and what the server sends up to its first ReadyForQuery. */
async function startup(socket: net.Socket, o: WireOptions): Promise<void> {
  const incoming = new Incoming();
  const queue: BackendMessage[] = [];
  let wake: (() => void) | null = null;
  let broken: Error | null = null;
  const onData = (data: Buffer) => {
    try {
      incoming.push(data, (m) => (queue.push(m), wake?.()));
    } catch (err) {
      onError(new WireError({ C: 'PROTOCOL', M: `could not read the server's answer: ${(err as Error).message}` }));
    }
  };
  const onError = (err: Error) => ((broken = err), wake?.());
  const onClose = () => ((broken ??= closedError('the server closed the connection during start-up')), wake?.());
  socket.on('data', onData).on('error', onError).on('close', onClose);
  const next = async (): Promise<BackendMessage> => {
    while (queue.length === 0) {
      if (broken) throw broken;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
    return queue.shift()!;
  };
  const send = (out: Outgoing) => socket.write(Buffer.concat(out.take()));
  try {
    // UTF-8 whatever the server, database or role default to: every value travels as text, and the
    // `postgres` client asks for the same (a LATIN1 default stored 'Ü' as 'Ã\x9c').
    socket.write(startupMessage({ user: o.user, database: o.database, ...o.params, client_encoding: 'UTF8' }));
    let scram: ReturnType<typeof scramClient> | null = null;
    let verified = false;
    let password: string | undefined;
    const pass = async () => (password ??= typeof o.password === 'function' ? await o.password() : o.password);
    for (;;) {
      const { type, body } = await next();
      if (type === 0x45) throw new WireError(errorFields(body));
      if (type === 0x5a) return;
      if (type !== 0x52) continue; // parameter status, backend key data, notices
      const kind = body.readInt32BE(0);
      if (kind === 0) {
        // AuthenticationOk: a SCRAM exchange must have ended with the server's proof
        if (scram && !verified)
          throw new WireError({
            C: '28000',
            M: 'the server ended SCRAM authentication without proving it knows the password',
          });
        continue;
      }
      if (kind === 3) send(new Outgoing().password(await pass()));
      else if (kind === 5) send(new Outgoing().password(md5Password(o.user, await pass(), body.subarray(4, 8))));
      else if (kind === 10) {
        const offered = body.toString('utf8', 4).split('\0').filter(Boolean);
        if (!offered.includes('SCRAM-SHA-256'))
          throw new WireError({ C: '28000', M: `no supported SASL mechanism among ${offered.join(', ')}` });
        scram = scramClient(await pass());
        send(new Outgoing().saslInitial('SCRAM-SHA-256', scram.first));
      } else if (kind === 11 && scram) send(new Outgoing().saslResponse(scram.final(body.toString('utf8', 4))));
      else if (kind === 12 && scram) (scram.verify(body.toString('utf8', 4)), (verified = true));
      else throw new WireError({ C: '28000', M: `authentication method ${kind} is not supported by the flush writer` });
    }
  } finally {
    socket.off('data', onData).off('error', onError).off('close', onClose);
  }
}

// Opens the database: the `postgres` client on DATABASE_URL, or, without one, embedded PGlite in DATA_DIR
// served on a Unix socket there so the very same client, queries and migrations talk to it. One process owns
// a data folder (data-folder.ts); any other (the CLI beside a running server) reaches the owner's database.
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import type { Sql } from 'postgres';
import type { Logger } from '../log.ts';
import { Refusal } from '../refusal.ts';
import { claimDataFolder, type Owner } from './data-folder.ts';
import { startEmbedded } from './embedded.ts';

export type Database = {
  sql: Sql;
  embedded: boolean;
  /** LISTENs on `channel`: `onNotify` gets each payload NOTIFY sends there, from any connection or process. */
  listen: (channel: string, onNotify: (payload: string) => void) => Promise<() => void>;
  close: () => Promise<void>;
};

export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  log: Logger;
  max?: number;
  /** PostgreSQL only: how long one statement may run before the server cancels it (0: no limit). Work that
   *  may take longer (migrations) lifts it inside its own transaction. PGlite has no timers to enforce it. */
  statementTimeoutMs?: number;
  /** The server: it must own the data folder, and refuses to start beside another owner. Others (the CLI,
   *  tools) use the running owner's database when there is one, else own the folder while they run. */
  exclusive?: boolean;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const sql = postgres(opts.databaseUrl, {
      ...clientOptions(opts.max ?? 10),
      // Reads group a range's rows by session and visitor: with the default 4 MB those sorts spill to disk,
      // and JIT compiling these short statements costs more than it saves. Prepared reads are planned for
      // their parameters every time: after five runs Postgres would try a generic plan, which for the rollup
      // reads (range bounds, split-session lookups) is far slower. The flush forces generic itself. No
      // parallel workers: a read that reads events took every core of the database beside it, and the
      // flushes waited (bench:query's ingest p99 3.8–6.4× its figure alone, 1.4–2.9× without; decisions.md).
      connection: {
        application_name: 'loupe',
        jit: 'off',
        work_mem: '32MB',
        max_parallel_workers_per_gather: '0',
        plan_cache_mode: 'force_custom_plan',
        ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
      },
    }) as unknown as Sql;
    return { sql, embedded: false, listen: listenWith(sql), close: () => sql.end({ timeout: 5 }) };
  }
  const claim = await claimDataFolder(opts.dataDir, opts.exclusive ? 'server' : 'cli');
  if (claim.held) {
    if (opts.exclusive) throw new Refusal(inUse(opts.dataDir, claim.owner));
    await reachable(claim.socketPath, 15_000);
    const sql = socketClient(claim.socketPath, opts.max ?? 1);
    return { sql, embedded: true, listen: listenWith(sql), close: () => sql.end({ timeout: 5 }) };
  }
  let server: Awaited<ReturnType<typeof startEmbedded>>;
  try {
    server = await startEmbedded(opts.dataDir, claim.socketPath, opts.log);
  } catch (err) {
    await claim.release();
    throw err;
  }
  // One connection: PGlite is a single session; the client queues its queries instead.
  const sql = socketClient(claim.socketPath, 1);
  return {
    sql,
    embedded: true,
    async listen(channel, onNotify) {
      const stop = server.onNotify(channel, onNotify);
      await sql.unsafe(`listen ${channel}`); // a constant name, never input
      return stop;
    },
    close: async () => {
      await sql.end({ timeout: 5 });
      await server.stop();
      await claim.release();
    },
  };
}

function socketClient(socketPath: string, max: number): Sql {
  return postgres({
    path: socketPath,
    database: 'postgres',
    username: 'postgres',
    ...clientOptions(max),
  }) as unknown as Sql;
}

const listenWith = (sql: Sql) => async (channel: string, onNotify: (payload: string) => void) => {
  const { unlisten } = await sql.listen(channel, onNotify);
  return () => void unlisten().catch(() => {});
};

function inUse(dataDir: string, owner: Owner): string {
  return (
    `The data folder ${path.resolve(dataDir)} is in use by another Loupe process (pid ${owner.pid}, ${owner.role}). ` +
    'One process owns a data folder: stop that one first, or set DATA_DIR to another folder. ' +
    'The CLI (npm run -s cli) works beside a running server.'
  );
}

/** Waits for the owner's socket to accept connections: an owner that has just taken the lock opens it
 *  once its database is up. */
async function reachable(socketPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const socket = net.connect({ path: socketPath });
      await once(socket, 'connect');
      socket.destroy();
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`The Loupe process that owns the data folder does not answer on ${socketPath}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function clientOptions(max: number): postgres.Options<Record<string, postgres.PostgresType>> {
  const options: postgres.Options<Record<string, postgres.PostgresType>> & { socket: typeof connectWithoutDelay } = {
    max,
    onnotice: () => {},
    // bigint counts and numeric averages come back as JS numbers: our values stay far below 2^53.
    types: {
      bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
      numeric: { to: 1700, from: [1700], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
    transform: { undefined: null },
    connection: { application_name: 'loupe' },
    socket: connectWithoutDelay, // documented by the client, missing from its types
  };
  return options;
}

/** The client's own sockets keep Nagle's algorithm on: a small message written right after a large one
 *  (COPY's closing CopyDone, the Sync after a big Bind) waits for the server to acknowledge the large one,
 *  and Linux delays that acknowledgement by up to 40 ms, so every COPY would wait that long. */
async function connectWithoutDelay(o: { host: string[]; port: number[]; path?: string | false }): Promise<net.Socket> {
  const socket = o.path
    ? net.connect({ path: o.path })
    : net.connect({ host: o.host[0], port: o.port[0]!, noDelay: true });
  await once(socket, 'connect');
  // The client reads the TLS server name (SNI) from socket.host, which it sets only on sockets it makes.
  if (!o.path) Object.assign(socket, { host: o.host[0] });
  return coalesceWrites(socket);
}

/** The client writes each message of 1 kB or more at once, so a flush's pipelined statements went out as
 *  one system call each, and each call woke a backend. Corked until the event loop's check phase (where
 *  the client already sends its small messages), everything written in one turn goes out as one writev. */
function coalesceWrites(socket: net.Socket): net.Socket {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: net.Socket, ...args: Parameters<net.Socket['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    return write.apply(this, args as never);
  } as net.Socket['write'];
  return socket;
}

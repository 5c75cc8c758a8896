// Opens the database: the `postgres` client on DATABASE_URL, or, without one, embedded PGlite in DATA_DIR
// served on loopback by pglite-socket so the very same client, queries and migrations talk to it.
import { once } from 'node:events';
import net from 'node:net';
import postgres from 'postgres';
import type { Sql } from 'postgres';
import type { Logger } from '../log.ts';
import { startEmbedded } from './embedded.ts';

export type Database = {
  sql: Sql;
  embedded: boolean;
  close: () => Promise<void>;
};

export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  log: Logger;
  max?: number;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const sql = postgres(opts.databaseUrl, {
      ...clientOptions(opts.max ?? 10),
      // Reads group a range's rows by session and visitor: with 4 MB those sorts spill to disk, and JIT
      // compiling these short statements costs more (50–80 ms) than it saves. Prepared reads are planned
      // for their parameters every time: after five runs Postgres would try a generic plan, which for the
      // rollup reads (range bounds, split-session lookups) ran 8× slower. The flush forces generic itself.
      connection: { application_name: 'loupe', jit: 'off', work_mem: '32MB', plan_cache_mode: 'force_custom_plan' },
    }) as unknown as Sql;
    return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) };
  }
  const server = await startEmbedded(opts.dataDir, opts.log);
  // One connection: PGlite is a single session, and interleaved extended-protocol messages from several
  // connections can lose each other's unnamed portals. The client queues queries instead.
  const sql = postgres({
    host: server.host,
    port: server.port,
    database: 'postgres',
    username: 'postgres',
    ...clientOptions(1),
  }) as unknown as Sql;
  return {
    sql,
    embedded: true,
    close: async () => {
      await sql.end({ timeout: 5 });
      await server.stop();
    },
  };
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
 *  and Linux delays that acknowledgement by up to 40 ms. Every COPY took 44 ms; with no delay, 1 ms. */
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

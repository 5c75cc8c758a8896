// The flush writer's connections: a few per process, each opened on first use (and again after it is
// lost) with the `postgres` client's own settings. A project's flushes always take the same connection, so
// they run one after another in the order sent, never waiting on each other's locks, while the next flush
// already waits in the socket; other projects spread over the other connections.
import type { Sql } from 'postgres';
import { WireConnection, unsent, type Step, type StepResult, type WireOptions } from './connection.ts';

export type WriterPool = {
  /** Runs one pipeline (one transaction) on the connection of `key` (a project). Rejects with an `unsent`
   *  WireError when no connection could be had: nothing was written then. */
  run: (key: string, steps: readonly Step[]) => Promise<StepResult[]>;
  /** Closes every connection once its pipelines are answered (within close()'s grace). */
  close: () => Promise<void>;
};

/** After a connection could not be opened, its slot answers `unsent` for this long before trying again:
 *  every flush meanwhile goes the checked way instead of waiting on connection attempts. */
const RETRY_MS = 5_000;

export function createWriterPool(
  options: WireOptions,
  statements: Record<string, string>,
  opts: { size?: number; onOpenError?: (err: unknown) => void } = {},
): WriterPool {
  const size = opts.size ?? 4;
  const slots: (Promise<WireConnection> | null)[] = new Array(size).fill(null);
  const failedAt: number[] = new Array(size).fill(-Infinity);
  let closing = false;

  function connection(i: number): Promise<WireConnection> {
    const slot = slots[i];
    if (slot)
      return slot.then(
        (c) => (c.closed ? reopen(i, slot) : c),
        () => reopen(i, slot),
      );
    return reopen(i, null);
  }

  /** A new connection for slot i, unless another caller replaced `stale` already. */
  function reopen(i: number, stale: Promise<WireConnection> | null): Promise<WireConnection> {
    if (closing) return Promise.reject(unsent(new Error('the flush writer is closed')));
    if (slots[i] !== stale) return connection(i);
    if (performance.now() - failedAt[i]! < RETRY_MS)
      return Promise.reject(unsent(new Error('the flush writer could not connect a moment ago')));
    const opened = WireConnection.open(options, statements).catch((err: unknown) => {
      failedAt[i] = performance.now();
      opts.onOpenError?.(err);
      throw unsent(err);
    });
    slots[i] = opened;
    return opened;
  }

  return {
    run: async (key, steps) => (await connection(slotOf(key, size))).run(steps),
    async close() {
      closing = true;
      await Promise.allSettled(slots.map(async (s) => (await s)?.close()));
    },
  };
}

/** Why the flush writer cannot serve a `postgres` client's settings, thrown by writerOptions. */
export class WriterUnsupported extends Error {}

/** The connection settings of a `postgres` client (its parsed options: URL, PG* variables, defaults), for
 *  a session of the flush writer. Throws WriterUnsupported for several hosts (`host1,host2`): the writer
 *  connects to one, and choosing among them (which is the primary, failing over) is the client's. */
export function writerOptions(sql: Sql, params: Record<string, string>): WireOptions {
  const o = sql.options as unknown as {
    host: string[];
    port: number[];
    path: string | false | undefined;
    database: string;
    user: string;
    pass: string | (() => string | Promise<string>) | null;
    ssl: unknown;
    connect_timeout: number;
    connection: Record<string, unknown>;
  };
  if (o.host.length > 1)
    throw new WriterUnsupported(
      `the flush writer connects to one host, and the database URL names ${o.host.length} (${o.host.join(',')})`,
    );
  // Settings the client sends at start-up too (postgres.js leaves out what is unset); the writer's own last.
  const inherited = Object.fromEntries(
    Object.entries(o.connection)
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [k, String(v)]),
  );
  return {
    host: o.host[0]!,
    port: o.port[0]!,
    path: o.path,
    database: o.database,
    user: o.user,
    password: o.pass ?? '',
    ssl: o.ssl,
    connectTimeoutMs: o.connect_timeout * 1000,
    params: { ...inherited, ...params },
  };
}

/** FNV-1a of the key: a project's connection, stable for the life of the process. */
function slotOf(key: string, size: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % size;
}

// The embedded default: PGlite persisted under DATA_DIR, served on a Unix socket inside that owner-only
// folder, so only this user's processes (the server, the CLI beside it) can reach it, and no TCP port is open.
// PGlite is one database session, so the socket server queues other connections behind open transactions.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from '../log.ts';
import { tightenModes } from './data-folder.ts';
import { shareSession, type Notification } from './embedded-session.ts';

export type Embedded = {
  /** Calls `onNotify` with each payload sent on `channel` once the shared session LISTENs to it (a
   *  client's LISTEN: the notifications come out in whichever connection's answer, so they are read here). */
  onNotify: (channel: string, onNotify: (payload: string) => void) => () => void;
  stop: () => Promise<void>;
};

/** Starts PGlite in `dataDir`/pglite and serves it on `socketPath`; call only holding the folder's lock. */
export async function startEmbedded(dataDir: string, socketPath: string, log: Logger): Promise<Embedded> {
  const dir = path.resolve(dataDir, 'pglite');
  const db = await PGlite.create(dir);
  // As the PostgreSQL client asks at connect (client.ts): prepared reads planned for their parameters
  // every time. After five runs PGlite, one session for every client, would otherwise switch a statement
  // to a generic plan, where `= any($1)` over thousands of hashes is a linear search per row. The flush
  // and the fold journal set a generic plan for their own transactions.
  await db.exec('set plan_cache_mode = force_custom_plan');
  await tightenModes(path.resolve(dataDir));
  const listeners = new Set<(n: Notification) => void>();
  const shared = shareSession(db, (n) => {
    for (const l of listeners) l(n);
  });
  await rm(socketPath, { force: true }); // left by an owner that crashed
  const server = new PGLiteSocketServer({ db: shared, path: socketPath, maxConnections: 16 });
  await server.start();
  log.info('embedded database started', { dir, socket: socketPath });
  return {
    onNotify(channel, onNotify) {
      const listener = (n: Notification) => n.channel === channel && onNotify(n.payload);
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop: async () => {
      await server.stop();
      await db.close();
      await rm(socketPath, { force: true });
      await tightenModes(path.resolve(dataDir));
    },
  };
}

// The embedded default: PGlite persisted under DATA_DIR, exposed on an ephemeral loopback port.
// PGlite is one database session, so the socket server queues other connections behind open transactions.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from '../log.ts';

export async function startEmbedded(dataDir: string, log: Logger) {
  const dir = path.resolve(dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  log.info('embedded database started', { dir, host, port: Number(port) });
  return {
    host: host ?? '127.0.0.1',
    port: Number(port),
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

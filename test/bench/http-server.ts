// A server for the HTTP benchmark, run as a child so the load generator does not share its event loop:
// `loupe` boots the real server with a project and an admin token, `bare` a uWebSockets.js app that
// answers a small JSON body. Prints one JSON line ({url, path, token?}) when listening; SIGTERM stops it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import uWS from 'uWebSockets.js';
import { startLoupe } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createProject, deleteProject } from '../../src/db/projects.ts';
import { createToken, revokeToken } from '../../src/db/tokens.ts';

const mode = process.argv[2];
const ready = (info: { url: string; path: string; token?: string }) =>
  process.stdout.write(JSON.stringify(info) + '\n');

if (mode === 'bare') {
  const body = JSON.stringify({ id: 'bench', name: 'Bench', visibility: 'private', publicVisitorData: false });
  uWS
    .App()
    .get('/*', (res) => {
      res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(body));
    })
    .listen('127.0.0.1', 0, (socket) => {
      if (!socket) throw new Error('bare server could not listen');
      ready({ url: `http://127.0.0.1:${uWS.us_socket_local_port(socket)}`, path: '/v2/projects/bench' });
    });
} else if (mode === 'loupe') {
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-bench-'));
  const loupe = await startLoupe(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      DATA_DIR: dataDir,
    }),
  );
  const sql = loupe.services.sql;
  const id = `bench-${Date.now().toString(36)}-${process.pid}`;
  const created = await createProject(sql, { id, name: 'Bench', visibility: 'private' });
  if (!created) throw new Error(`project ${id} exists`);
  await loupe.services.projects.refresh(); // the route reads the in-memory directory, as the API's create does
  const { row, token } = await createToken(sql, {
    name: id,
    scope: 'admin',
    projectIds: null,
    expiresAt: null,
    createdBy: null,
  });
  ready({ url: `http://127.0.0.1:${loupe.port}`, path: `/v2/projects/${id}`, token });
  process.once('SIGTERM', async () => {
    await revokeToken(sql, row.id);
    await deleteProject(sql, id);
    await loupe.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
} else {
  throw new Error('usage: http-server.ts loupe|bare');
}

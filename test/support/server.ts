// Boots the real Loupe server on an ephemeral loopback port for black-box HTTP tests, with helpers
// to make members, sessions, tokens and projects the way an operator would (CLI-equivalent calls).
import { startLoupe, type Loupe } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { addMember, startSession, type Role } from '../../src/db/members.ts';
import { createProject, type Visibility } from '../../src/db/projects.ts';
import { createToken, type TokenScope } from '../../src/db/tokens.ts';
import { createTestDatabase } from './database.ts';

export type TestServer = {
  url: string;
  loupe: Loupe;
  request: (method: string, path: string, opts?: RequestOptions) => Promise<TestResponse>;
  member: (role: Role, projectIds?: string[] | null) => Promise<{ cookie: string; userId: string }>;
  token: (scope: TokenScope, projectIds?: string[] | null, expiresAt?: Date | null) => Promise<string>;
  project: (id: string, visibility?: Visibility) => Promise<{ id: string; publicKey: string; secretKey: string }>;
  /** Applies the sessions and visitors the actors hold, as a read route does, for tests that query tables. */
  settle: () => Promise<void>;
  close: () => Promise<void>;
};

export type RequestOptions = {
  token?: string;
  cookie?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
};
export type TestResponse = { status: number; headers: Headers; body: any; text: string };

export async function startTestServer(overrides: Partial<Config> = {}, logLines?: string[]): Promise<TestServer> {
  const db = await createTestDatabase();
  const config = loadConfig(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: db.dataDir, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) },
    {
      cronSecret: 'cron-secret-for-tests-0123456789',
      // Every test client is 127.0.0.1: the per-IP limit of anonymous reads is tested where it is set.
      publicReadRate: { capacity: 1e6, refillPerSecond: 1e6 },
      ...overrides,
    },
  );
  const log = logLines
    ? createLogger('debug', {}, (line) => logLines.push(line))
    : createLogger((process.env.TEST_LOG_LEVEL as 'info' | undefined) ?? 'silent');
  const loupe = await startLoupe(config, log);
  const url = `http://127.0.0.1:${loupe.port}`;
  const sql = loupe.services.sql;
  let members = 0;

  return {
    url,
    loupe,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      if (opts.cookie) headers.cookie = opts.cookie;
      let body: string | Buffer | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async member(role, projectIds = null) {
      const m = await addMember(sql, { login: `${role}-${++members}@example.com`, role, projectIds });
      const { token } = await startSession(sql, m.id);
      return { cookie: `${config.cookiePrefix}.session_token=${token}`, userId: m.id };
    },
    async token(scope, projectIds = null, expiresAt = null) {
      return (await createToken(sql, { name: `${scope} token`, scope, projectIds, expiresAt, createdBy: 'test' }))
        .token;
    },
    async project(id, visibility = 'private') {
      const created = await createProject(sql, { id, name: id, visibility });
      if (!created) throw new Error(`project ${id} exists`);
      await loupe.services.projects.refresh();
      return { id, publicKey: created.project.public_key, secretKey: created.secretKey };
    },
    settle: () => loupe.services.actors.settleAll(),
    async close() {
      await loupe.close();
      await db.drop();
    },
  };
}

// Every route against every kind of member (owner, admin, analyst, viewer; with and without a project
// list) signed in by cookie, and the API tokens beside them, judged by the spec's access rules written out
// here on their own (not src/auth's code): a private project the caller cannot read is 404, a route the
// caller may not use is 401 signed out and 403 signed in, anything else gets past access. A member and a
// token with the same reach get the same answers.
import t from 'tap';
import { allRoutes } from '../../src/routes/index.ts';
import type { Route } from '../../src/routes/route.ts';
import { createProject } from '../../src/db/projects.ts';
import { startTestServer } from '../support/server.ts';

// About 800 requests: on a loaded machine that outlasts tap's default two minutes.
t.setTimeout(600_000);
const s = await startTestServer();
t.teardown(() => s.close());
await s.project('pub', 'public');
await s.project('priv');
await s.project('other');

type Who =
  | { kind: 'anonymous' }
  | { kind: 'member'; role: 'owner' | 'admin' | 'analyst' | 'viewer'; projects: string[] | null }
  | { kind: 'token'; scope: 'read' | 'sql' | 'admin'; projects: string[] | null };

const members = [
  ['owner', null],
  ['admin', null],
  ['admin', ['priv']],
  ['admin', ['other']],
  ['analyst', null],
  ['analyst', ['priv']],
  ['analyst', ['other']],
  ['viewer', null],
  ['viewer', ['priv']],
  ['viewer', ['other']],
] as const;
const tokens = [
  ['read', null],
  ['read', ['priv']],
  ['read', ['other']],
  ['sql', ['priv']],
  ['admin', null],
  ['admin', ['priv']],
  ['admin', ['other']],
] as const;
const label = (w: Who) =>
  w.kind === 'anonymous'
    ? 'anonymous'
    : `${w.kind === 'member' ? w.role : `${w.scope} token`} ${w.projects?.join(',') ?? 'all'}`;

const callers: { who: Who; headers: Record<string, string> }[] = [{ who: { kind: 'anonymous' }, headers: {} }];
for (const [role, projects] of members) {
  const { cookie } = await s.member(role, projects === null ? null : [...projects]);
  // Changes by cookie come from the dashboard: here the API's own origin.
  callers.push({
    who: { kind: 'member', role, projects: projects && [...projects] },
    headers: { cookie, origin: s.url },
  });
}
for (const [scope, projects] of tokens) {
  const token = await s.token(scope, projects === null ? null : [...projects]);
  callers.push({
    who: { kind: 'token', scope, projects: projects && [...projects] },
    headers: { authorization: `Bearer ${token}` },
  });
}

// The spec's Authentication section, as a table a reader can check line by line.
const lists = (w: Who, p: string) => w.kind !== 'anonymous' && (w.projects === null || w.projects.includes(p));
const isOwner = (w: Who) => w.kind === 'member' && w.role === 'owner';
const rules = {
  read: (w: Who, p: string, isPublic: boolean) => isPublic || isOwner(w) || lists(w, p),
  project: () => true,
  detail: (w: Who, p: string) => isOwner(w) || (lists(w, p) && !(w.kind === 'member' && w.role === 'viewer')),
  admin: (w: Who, p: string) =>
    isOwner(w) ||
    (lists(w, p) && (w.kind === 'member' ? w.role === 'admin' : w.kind === 'token' && w.scope === 'admin')),
  organization: (w: Who) =>
    isOwner(w) ||
    (w.kind !== 'anonymous' && w.projects === null && (w.kind === 'member' ? w.role === 'admin' : w.scope === 'admin')),
  owner: isOwner,
  // The SQL route (DESIGN.md): owners, admins and analysts, and sql tokens (admin tokens too: an admin may
  // make a sql token at will) that list the project.
  sql: (w: Who, p: string) =>
    isOwner(w) ||
    (lists(w, p) &&
      (w.kind === 'member'
        ? w.role === 'admin' || w.role === 'analyst'
        : w.kind === 'token' && (w.scope === 'sql' || w.scope === 'admin'))),
  members: (w: Who) => w.kind === 'member' && (w.role === 'owner' || w.role === 'admin'),
  public: () => true,
  cron: () => false,
};

type Outcome = 'passes' | 'hidden' | 'unauthorized' | 'forbidden';
function expected(r: Route, w: Who, project: string | null): Outcome {
  const refused: Outcome = w.kind === 'anonymous' ? 'unauthorized' : 'forbidden';
  if (r.access === 'public') return 'passes';
  if (project === null) return (rules[r.access as 'organization'] as (w: Who) => boolean)(w) ? 'passes' : refused;
  if (!rules.read(w, project, project === 'pub')) return 'hidden';
  const allowed = r.access === 'project' || (rules[r.access as 'detail'] as (w: Who, p: string) => boolean)(w, project);
  return allowed ? 'passes' : refused;
}

// The pipeline's own refusals; a handler may refuse further by its own rules (and say so in its words).
const ACCESS_MESSAGES =
  /^(Your credential does not allow this\.|Sign in or send a token to do this\.|This route needs the cron secret\.)$/;
async function outcome(
  r: Route,
  path: string,
  headers: Record<string, string>,
): Promise<{ o: Outcome | 'other'; text: string }> {
  const withBody = r.body !== undefined;
  const res = await fetch(s.url + path, {
    method: r.method,
    headers: { ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    body: withBody ? '{}' : undefined, // a passing caller gets a 400: nothing changes
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status < 400) {
    await res.body?.cancel();
    return { o: 'passes', text: String(res.status) };
  }
  const text = await res.text();
  const message: string = JSON.parse(text).error?.message ?? '';
  if (res.status === 500) return { o: 'other', text };
  if (res.status === 401) return { o: 'unauthorized', text };
  if (res.status === 403 && ACCESS_MESSAGES.test(message)) return { o: 'forbidden', text };
  if (res.status === 404 && /^Project \S+ not found\.$/.test(message)) return { o: 'hidden', text };
  return { o: 'passes', text: `${res.status} ${text.slice(0, 100)}` };
}

const placeholder: Record<string, string> = { dimension: 'page', job: 'nope', file: 'nope.js', member: 'nobody' };
// Ingest decides by key and origin (test/http/ingest.test.ts); sign-in and sign-out by the browser's flow
// (test/http/sign-in.test.ts); a sign-out here would end the caller's session.
const skipped = (r: Route) =>
  r.access === 'ingest' || (r.path.startsWith('/v2/auth/') && r.path !== '/v2/auth/session');

// Routes whose handler narrows its level further (the SQL route: sql tokens, owners, admins and analysts,
// on projects with sqlEnabled): the level's refusals are checked; where the level lets a caller through,
// the handler may still refuse.
const refinedByHandler = new Set(['POST /v2/projects/{project}/sql']);

const answers = new Map<string, string>();
for (const r of allRoutes().filter((r) => !skipped(r))) {
  const projects = r.path.includes('{project}') ? ['priv', 'pub'] : [null];
  for (const project of projects) {
    const path = r.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      name === 'project' ? project! : (placeholder[name] ?? `x_${name}`),
    );
    t.test(`${r.method} ${path} (${r.access})`, async (t) => {
      for (const c of callers) {
        const want = expected(r, c.who, project);
        const got = await outcome(r, path, c.headers);
        const refined = refinedByHandler.has(`${r.method} ${r.path}`) && want === 'passes' && got.o === 'forbidden';
        t.equal(refined ? want : got.o, want, `${label(c.who)}: ${got.text.slice(0, 160)}`);
        answers.set(`${r.method} ${path} ${label(c.who)}`, got.o);
        // An owner's delete went through: the project comes back for the callers after it.
        if (r.method === 'DELETE' && r.path === '/v2/projects/{project}' && got.o === 'passes') {
          await createProject(s.loupe.services.sql, {
            id: project!,
            name: project!,
            visibility: project === 'pub' ? 'public' : 'private',
          });
          await s.loupe.services.projects.refresh();
        }
      }
    });
  }
}

t.test('a member and a token with the same reach get the same answers', async (t) => {
  const pairs: [string, string, (access: string) => boolean][] = [
    // Admins: everything but the member list and the owner's own routes.
    ['admin all', 'admin token all', (a) => a !== 'members' && a !== 'owner'],
    ['admin priv', 'admin token priv', (a) => a !== 'members' && a !== 'owner'],
    ['admin other', 'admin token other', (a) => a !== 'members' && a !== 'owner'],
    // Analysts read like read tokens (aggregates and visitor-level data), and change nothing.
    ['analyst priv', 'read token priv', (a) => a !== 'members'],
    ['analyst all', 'read token all', (a) => a !== 'members'],
    // Viewers read aggregates like a read token.
    ['viewer priv', 'read token priv', (a) => a === 'project' || a === 'public' || a === 'admin'],
  ];
  for (const r of allRoutes().filter((r) => !skipped(r) && !refinedByHandler.has(`${r.method} ${r.path}`))) {
    for (const [member, token, compared] of pairs) {
      if (!compared(r.access)) continue;
      for (const [key, o] of answers) {
        if (!key.startsWith(`${r.method} `) || !key.endsWith(` ${member}`)) continue;
        const path = key.slice(r.method.length + 1, -member.length - 1);
        if (!matches(r.path, path)) continue;
        t.equal(answers.get(`${r.method} ${path} ${token}`), o, `${r.method} ${path}: ${member} as ${token}`);
      }
    }
  }
});

const matches = (pattern: string, path: string) => new RegExp(`^${pattern.replace(/\{\w+\}/g, '[^/]+')}$`).test(path);

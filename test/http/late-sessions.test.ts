// Late events join the session they belong to, so the order events arrive in changes no answer: the same
// backfill (several days of two- and three-event sessions) sent as the browser SDK sends it (visitor and
// client session ids) and as a server sends it (neither: the visitor is its IP and user agent), in time order,
// reversed, shuffled, and shuffled with a restart halfway, gives the same sessions, visitors, bounce rate and
// durations each time. Without client ids one order can still split a session: an event that bridges two
// stored sessions joins one of them (docs/data-safety.md); the last test shows that bound.
import t from 'tap';
import { startLoupe, type Loupe } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createProject } from '../../src/db/projects.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';

t.setTimeout(600_000);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const config: Config = loadConfig(
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: db.dataDir, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) },
  { ingestSecretRate: { capacity: 100_000, refillPerSecond: 100_000 } },
);
const log = createLogger('silent');
let loupe: Loupe = await startLoupe(config, log);
t.teardown(() => loupe.close());
const restart = async () => {
  await loupe.close();
  loupe = await startLoupe(config, log);
};

let seed = 11;
const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const shuffled = <T>(xs: readonly T[]): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

type Sent = { id: string; at: number; name: string; path: string; visitor: number; session: string };
/** Eight visitors, each with sessions on five days: within a session every event is at most 30 minutes from
 *  every other (two or three events; some bounce), and sessions are hours apart. */
const now = Date.now();
const start = Math.floor((now - 6 * DAY) / DAY) * DAY;
const events: Sent[] = [];
for (let v = 0; v < 8; v++) {
  for (let d = 0; d < 5; d++) {
    for (let k = 0; k < 2; k++) {
      const begin = start + d * DAY + (8 + 6 * k + v * 0.25) * HOUR;
      const session = `cs-${v}-${d}-${k}`;
      const count = (v + d + k) % 4 === 0 ? 1 : 2 + ((v + d) % 2);
      for (let i = 0; i < count; i++) {
        const name = i === 2 ? 'signup' : 'pageview';
        events.push({ id: `${session}-${i}`, at: begin + i * 12 * MIN, name, path: `/p${i}`, visitor: v, session });
      }
    }
  }
}
const chrome = (v: number) =>
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/13${v}.0.0.0 Safari/537.36`;
const asBrowser = (e: Sent) => ({
  id: e.id,
  name: e.name,
  ts: new Date(e.at).toISOString(),
  visitor: `anon-${e.visitor}`,
  session: e.session,
  page: { url: `https://shop.example.com${e.path}` },
  context: { ip: `81.2.69.${10 + e.visitor}`, userAgent: chrome(e.visitor) },
});
const asServer = (e: Sent) => ({
  id: e.id,
  name: e.name,
  ts: new Date(e.at).toISOString(),
  page: { url: `https://shop.example.com${e.path}` },
  context: { ip: `81.2.69.${10 + e.visitor}`, userAgent: chrome(e.visitor) },
});

async function send(key: string, batch: unknown[]) {
  const res = await fetch(`http://127.0.0.1:${loupe.port}/v2/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: batch }),
  });
  const body = (await res.json()) as { accepted: number };
  if (res.status !== 202 || body.accepted !== batch.length)
    throw new Error(`ingest: ${res.status} ${JSON.stringify(body)}`);
}
async function sendAll(key: string, order: Sent[], shape: (e: Sent) => unknown, restartAt?: number) {
  for (let i = 0; i < order.length; i += 10) {
    if (restartAt !== undefined && i === restartAt) await restart();
    await send(key, order.slice(i, i + 10).map(shape));
  }
}
async function project(id: string): Promise<string> {
  const created = await createProject(loupe.services.sql, { id, name: id, visibility: 'private' });
  await loupe.services.projects.refresh();
  return created!.secretKey;
}
/** What the orders must agree on: the stored sessions (by visitor, span and counts; the ids too with
 *  client ids) and the stats read over the whole span with every kind of traffic. */
async function outcome(id: string, withIds: boolean) {
  await loupe.services.actors.settleAll();
  const token = await tokenFor();
  const q = `from=${new Date(start - DAY).toISOString()}&to=${new Date(now + HOUR).toISOString()}&traffic=all`;
  const res = await fetch(`http://127.0.0.1:${loupe.port}/v2/projects/${id}/stats?${q}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const stats = ((await res.json()) as { data: Record<string, unknown> }).data;
  const sessions = await loupe.services.sql<
    { id: string; visitor_id: string; started_at: Date; last_activity: Date; pageviews: number; events: number }[]
  >`select id, visitor_id, started_at, last_activity, pageviews, events from sessions where project_id = ${id}
    order by started_at, visitor_id`;
  const perEvent = await loupe.services.sql<{ n: number }[]>`
    select count(distinct session_id)::int as n from events where project_id = ${id}`;
  // A hashed visitor id depends on the project's salt: visitors are named by the order they first came in.
  const first = new Map<string, number>();
  for (const s of sessions) first.set(s.visitor_id, Math.min(first.get(s.visitor_id) ?? Infinity, +s.started_at));
  const rank = new Map([...first].sort((a, b) => a[1] - b[1]).map(([v], i) => [v, `visitor ${i}`]));
  return {
    stats,
    eventSessions: perEvent[0]!.n,
    sessions: sessions.map((s) => ({
      ...(withIds ? { id: s.id } : {}),
      visitor: withIds ? s.visitor_id : rank.get(s.visitor_id),
      span: [s.started_at.toISOString(), s.last_activity.toISOString()],
      pageviews: s.pageviews,
      events: s.events,
    })),
  };
}
let token: string | null = null;
async function tokenFor(): Promise<string> {
  if (token) return token;
  token = (
    await createToken(loupe.services.sql, {
      name: 'reader',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'test',
    })
  ).token;
  return token;
}

const sessionsSent = new Set(events.map((e) => e.session)).size;
const orders: [string, Sent[], number | undefined][] = [
  ['time', [...events].sort((a, b) => a.at - b.at), undefined],
  ['reversed', [...events].sort((a, b) => b.at - a.at), undefined],
  ['shuffled', shuffled(events), undefined],
  ['split', shuffled(events), Math.floor(events.length / 20) * 10],
];

for (const [kind, shape, withIds] of [
  ['browser', asBrowser, true],
  ['server', asServer, false],
] as const) {
  t.test(`${kind} events: every order, the same answers`, async (t) => {
    let reference: Awaited<ReturnType<typeof outcome>> | null = null;
    for (const [label, order, restartAt] of orders) {
      const id = `${kind}-${label}`;
      await sendAll(await project(id), order, shape, restartAt);
      const got = await outcome(id, withIds);
      t.equal(got.eventSessions, sessionsSent, `${label}: ${sessionsSent} sessions, as sent`);
      t.equal(got.sessions.length, sessionsSent, `${label}: one stored row a session`);
      if (!reference) {
        reference = got;
        t.match(got.stats, { visitors: { value: 8 }, sessions: { value: sessionsSent } });
        continue;
      }
      t.same(got.sessions, reference.sessions, `${label}: the same sessions as in time order`);
      t.same(got.stats, reference.stats, `${label}: the same visitors, sessions, bounce rate and durations`);
    }
  });
}

t.test('the bound: without client ids, an event that bridges two stored sessions joins one of them', async (t) => {
  // Three events 25 minutes apart: in time order one session. Sent first and last, then the middle, they are
  // two stored sessions by the time the middle one (within the gap of both) comes; it joins the nearer one.
  const at = start + DAY + 20 * HOUR;
  const three: Sent[] = [0, 25, 50].map((m, i) => ({
    id: `bridge-${i}`,
    at: at + m * MIN,
    name: 'pageview',
    path: `/b${i}`,
    visitor: 7,
    session: 'cs-bridge',
  }));
  const count = async (id: string, order: Sent[], shape: (e: Sent) => unknown) => {
    const key = await project(id);
    for (const e of order) await send(key, [shape(e)]);
    await loupe.services.actors.settleAll();
    const [row] = await loupe.services.sql<{ n: number }[]>`
      select count(distinct session_id)::int as n from events where project_id = ${id}`;
    return row!.n;
  };
  const bridging = [three[0]!, three[2]!, three[1]!];
  t.equal(await count('bound-time', three, asServer), 1, 'in time order: one session');
  t.equal(await count('bound-bridge', bridging, asServer), 2, 'the bridge last: two (the documented bound)');
  t.equal(await count('bound-ids', bridging, asBrowser), 1, 'with client session ids: one, in any order');
});

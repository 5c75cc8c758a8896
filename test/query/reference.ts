// Reference data for the aggregate-read tests: a seeded generator of visitors, sessions and events,
// a sender (secret key, past timestamps), and the metrics computed in plain TypeScript from what was sent.
import type { TestServer } from '../support/server.ts';

export type Sent = {
  id: string; ts: number; name: string; visitor: string; session: string; path: string; host: string;
  country: string | null; plan: string; bot: boolean; internal: boolean; localhost: boolean; environment: 'production' | 'preview';
};
export type RefScope = {
  from: number; to: number; traffic: 'human' | 'bots' | 'internal' | 'all'; environment: 'production' | 'preview' | 'all';
  filters?: Record<string, string>;
};

const DAY = 86_400_000;
const MIN = 60_000;
const PATHS = ['/', '/pricing', '/docs', '/blog/a', '/blog/b'];

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Events over the `days` days starting at `start`, per visitor in time order, sessions split by ≥ 2 h. */
export function generate(prefix: string, start: number, days: number, visitors = 150, seed = 7): Sent[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: Sent[] = [];
  let n = 0;
  for (let v = 0; v < visitors; v++) {
    const kind = rnd();
    const bot = kind < 0.08, internal = kind >= 0.08 && kind < 0.14, localhost = kind >= 0.14 && kind < 0.17;
    const environment = rnd() < 0.12 ? 'preview' : 'production';
    const country = rnd() < 0.4 ? 'GB' : null;
    const plan = pick(['free', 'pro', 'team']);
    const visitor = `${prefix}v${v}`;
    let t = start + Math.floor(rnd() * (days - 1) * DAY);
    const sessions = 1 + Math.floor(rnd() * 4);
    for (let s = 0; s < sessions && t < start + days * DAY; s++) {
      const session = `${visitor}s${s}`;
      const count = 1 + Math.floor(rnd() * 10);
      for (let i = 0; i < count && t < start + days * DAY; i++) {
        const r = rnd();
        const name = i === 0 ? (r < 0.85 ? 'pageview' : 'signup') : r < 0.65 ? 'pageview' : r < 0.75 ? 'signup' : r < 0.82 ? 'click' : 'engagement';
        out.push({ id: `${prefix}e${++n}`, ts: t, name, visitor, session, path: pick(PATHS), host: localhost ? 'localhost' : 'shop.example.com',
          country, plan, bot, internal, localhost, environment });
        t += Math.floor(1 + rnd() * 20 * MIN);
      }
      t += 2 * 3_600_000 + Math.floor(rnd() * 2 * DAY);
    }
  }
  return out;
}

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** Sends with the secret key, in time order, in batches per header kind (bot user agent, owner cookie). */
export async function send(s: TestServer, secretKey: string, events: Sent[], ownerCookie: string) {
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  for (const group of [sorted.filter((e) => !e.bot && !e.internal), sorted.filter((e) => e.bot), sorted.filter((e) => e.internal)]) {
    for (let i = 0; i < group.length; i += 400) {
      const batch = group.slice(i, i + 400);
      const headers: Record<string, string> = { 'user-agent': batch[0]!.bot ? googlebot : chrome, ...(batch[0]!.internal ? { cookie: ownerCookie } : {}) };
      const res = await s.request('POST', '/v2/ingest', { token: secretKey, headers, body: { events: batch.map(toWire) } });
      if (res.status !== 202 || res.body.accepted !== batch.length) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    }
  }
}

const toWire = (e: Sent) => ({
  id: e.id, name: e.name, visitor: e.visitor, ts: new Date(e.ts).toISOString(), environment: e.environment,
  page: { url: `${e.localhost ? 'http://localhost:3000' : 'https://shop.example.com'}${e.path}` },
  props: e.name === 'engagement' ? { timeMs: 5000, scrollDepth: 60 } : { plan: e.plan },
  context: { ip: e.country === 'GB' ? '81.2.69.142' : '10.1.2.3', userAgent: e.bot ? googlebot : chrome },
});

const dimensionOf: Record<string, (e: Sent) => string | null> = {
  page: (e) => e.path, event: (e) => e.name, country: (e) => e.country, 'prop:plan': (e) => (e.name === 'engagement' ? null : e.plan),
};

export function matches(e: Sent, q: RefScope): boolean {
  if (e.ts < q.from || e.ts >= q.to) return false;
  if (q.traffic === 'human' && (e.bot || e.internal || e.localhost)) return false;
  if (q.traffic === 'bots' && !e.bot) return false;
  if (q.traffic === 'internal' && !e.internal) return false;
  if (q.environment !== 'all' && e.environment !== q.environment) return false;
  for (const [dim, raw] of Object.entries(q.filters ?? {})) {
    const value = dimensionOf[dim]!(e);
    if (raw.startsWith('!') ? value === raw.slice(1) : value !== raw) return false;
  }
  return true;
}

export type RefSession = { visitor: string; first: number; pageviews: number; custom: number; duration: number };

export function refSessions(events: Sent[], q: RefScope): RefSession[] {
  const by = new Map<string, Sent[]>();
  for (const e of events) if (matches(e, q)) by.set(e.session, [...(by.get(e.session) ?? []), e]);
  return [...by.values()].filter((es) => es.some((e) => e.name !== 'engagement')).map((es) => {
    const ts = es.map((e) => e.ts);
    return { visitor: es[0]!.visitor, first: Math.min(...ts), pageviews: es.filter((e) => e.name === 'pageview').length,
      custom: es.filter((e) => !['pageview', 'engagement', 'speed', 'error'].includes(e.name)).length, duration: Math.max(...ts) - Math.min(...ts) };
  });
}

export function refStats(events: Sent[], q: RefScope) {
  const ss = refSessions(events, q);
  const sessions = ss.length;
  const pageviews = ss.reduce((a, s) => a + s.pageviews, 0);
  const r = (n: number) => (sessions === 0 ? 0 : n / sessions);
  return {
    visitors: new Set(ss.map((s) => s.visitor)).size, sessions, pageviews, pagesPerSession: r(pageviews),
    bounceRate: r(ss.filter((s) => s.pageviews === 1 && s.custom === 0).length), sessionDurationMs: r(ss.reduce((a, s) => a + s.duration, 0)),
  };
}

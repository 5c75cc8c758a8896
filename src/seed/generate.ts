// Synthetic visitors, each with their sessions and events, drawn over a span of days with a daily and
// weekly rhythm. Session and visitor totals are computed from the very events generated, the way the
// ingest flush computes them, so reads over events, sessions and visitors agree. No I/O here.
import {
  agents,
  botAgents,
  ctaPlaces,
  errorKinds,
  pages,
  places,
  plans,
  releases,
  sessionLengths,
  sources,
  visitorSessions,
  type Agent,
  type Page,
  type Place,
  type Source,
} from './catalog.ts';
import { createRandom, type Random } from './random.ts';

export type Vitals = { lcp: number; inp: number; cls: number; fcp: number; ttfb: number; element: string };
export type SeedEvent = {
  ts: number;
  id: string;
  name: string;
  page: Page;
  props: Record<string, unknown> | null;
  vitals: Vitals | null;
  /** An error event's issue, named as ingest names it (seed/issues.ts); null for every other event. */
  issue?: string | null;
};
export type SeedSession = {
  id: string;
  visitorId: string;
  host: string;
  source: Source;
  place: Place;
  agent: Agent;
  userId: string | null;
  release: string;
  environment: 'production' | 'preview';
  isInternal: boolean;
  botScore: number;
  events: SeedEvent[];
  startedAt: number;
  lastActivity: number;
  pageviews: number;
  customEvents: number;
  entryPage: string | null;
  exitPage: string | null;
  entryAt: number | null;
  exitAt: number | null;
};
export type SeedVisitor = {
  id: string;
  place: Place;
  agent: Agent;
  userId: string | null;
  traits: Record<string, unknown>;
  botScore: number;
  isInternal: boolean;
  firstSeen: number;
  lastSeen: number;
  sessions: SeedSession[];
};
export type TrafficOptions = { events: number; days: number; now: Date; seed: number; runId: string };

const DAY = 86_400_000;
const BUILT_IN = new Set(['pageview', 'engagement', 'speed', 'error']);

/** Yields visitors until exactly `events` events have been generated (the last session may be cut short). */
export function* generateTraffic(opts: TrafficOptions): Generator<SeedVisitor> {
  const r = createRandom(opts.seed);
  const end = opts.now.getTime();
  const start = Math.floor(end / DAY) * DAY - opts.days * DAY;
  const when = rhythm(r, start, end);
  let left = opts.events;
  let visitors = 0;
  let sessions = 0;
  let events = 0;
  const nextEventId = () => `e${opts.runId}${(events++).toString(36)}`;
  while (left > 0) {
    const bot = r.chance(0.03);
    const internal = !bot && r.chance(0.01);
    const known = !bot && r.chance(0.08);
    const visitor: SeedVisitor = {
      id: `v${opts.runId}${(visitors++).toString(36)}`,
      place: r.pick(places),
      agent: r.pick(bot ? botAgents : agents),
      userId: known ? `u${opts.runId}${visitors.toString(36)}` : null,
      traits: known ? { plan: r.pick(plans) } : {},
      botScore: bot ? r.int(60, 100) : r.chance(0.05) ? r.int(5, 30) : 0,
      isInternal: internal,
      firstSeen: Infinity,
      lastSeen: -Infinity,
      sessions: [],
    };
    let at = when();
    const count = bot ? 1 : r.pick(visitorSessions);
    for (let i = 0; i < count && at < end && left > 0; i++) {
      const s = session(r, visitor, `s${opts.runId}${(sessions++).toString(36)}`, at, end, left, bot, nextEventId);
      left -= s.events.length;
      visitor.sessions.push(s);
      visitor.firstSeen = Math.min(visitor.firstSeen, s.startedAt);
      visitor.lastSeen = Math.max(visitor.lastSeen, s.lastActivity);
      at += Math.max(3_600_000, -Math.log(1 - r.next()) * 6 * DAY); // next visit: mostly within a week or two
    }
    if (visitor.sessions.length > 0) yield visitor;
  }
}

function session(
  r: Random,
  v: SeedVisitor,
  id: string,
  at: number,
  end: number,
  budget: number,
  bot: boolean,
  nextId: () => string,
): SeedSession {
  const preview = r.chance(0.02);
  const s: SeedSession = {
    id,
    visitorId: v.id,
    host: preview ? 'preview.loupe.dev' : 'loupe.dev',
    source: bot ? sources.items[0]! : r.pick(sources),
    place: v.place,
    agent: v.agent,
    userId: v.userId,
    release: releases[Math.min(releases.length - 1, Math.floor(r.next() * releases.length))]!,
    environment: preview ? 'preview' : 'production',
    isInternal: v.isInternal,
    botScore: v.botScore,
    events: [],
    startedAt: at,
    lastActivity: at,
    pageviews: 0,
    customEvents: 0,
    entryPage: null,
    exitPage: null,
    entryAt: null,
    exitAt: null,
  };
  const views = bot ? r.int(1, 8) : r.pick(sessionLengths);
  let ts = at;
  const add = (name: string, page: Page, props: Record<string, unknown> | null, vitals: Vitals | null = null) => {
    if (s.events.length >= budget || ts >= end) return false;
    s.events.push({ ts, id: nextId(), name, page, props, vitals });
    s.lastActivity = ts;
    if (name === 'pageview') {
      s.pageviews++;
      if (s.entryPage === null) ((s.entryPage = page.path), (s.entryAt = ts));
      s.exitPage = page.path;
      s.exitAt = ts;
    } else if (!BUILT_IN.has(name)) s.customEvents++;
    return true;
  };
  for (let i = 0; i < views; i++) {
    const page = i === 0 && s.source.channel === 'Paid Search' ? pages.items[1]! : r.pick(pages);
    if (!add('pageview', page, null)) break;
    const stay = Math.round(3_000 + r.next() ** 2 * 170_000);
    if (!bot) {
      if (r.chance(0.25)) add('speed', page, null, vitals(r));
      ts += Math.round(stay * r.next() * 0.5);
      custom(r, page, add);
      if (r.chance(0.012)) {
        const e = r.pick(errorKinds);
        add('error', page, { message: e.message, type: e.type, stack: e.stack, level: 'error' });
      }
      ts += Math.round(stay * 0.5);
      if (r.chance(0.6))
        add('engagement', page, { timeMs: stay, scrollDepth: Math.min(100, Math.round(r.next() * 110)) });
    } else ts += 500 + Math.round(r.next() * 2_000);
  }
  return s;
}

function custom(
  r: Random,
  page: Page,
  add: (name: string, page: Page, props: Record<string, unknown> | null) => boolean,
): void {
  if (page.path === '/signup' && r.chance(0.45)) add('signup', page, { plan: r.pick(plans) });
  else if (page.path === '/checkout' && r.chance(0.55))
    add('purchase', page, { amount: [9, 29, 99, 299][r.int(0, 3)]! + (r.chance(0.2) ? 0.99 : 0), currency: 'USD' });
  else if (page.path === '/' && r.chance(0.12)) add('cta_click', page, { location: r.pick(ctaPlaces) });
  else if (page.route === '/docs/[...slug]' && r.chance(0.06)) add('download', page, { file: 'loupe-sdk.tgz' });
}

const vitals = (r: Random): Vitals => ({
  lcp: Math.round(900 + r.next() ** 2 * 4_000),
  inp: Math.round(40 + r.next() ** 3 * 600),
  cls: Math.round(r.next() ** 3 * 400) / 1000,
  fcp: Math.round(500 + r.next() ** 2 * 2_500),
  ttfb: Math.round(60 + r.next() ** 2 * 900),
  element: r.chance(0.5) ? 'main > h1' : 'img.hero',
});

/** Times with more traffic in the (UTC) afternoon, less at weekends, and slow growth over the span. */
function rhythm(r: Random, start: number, end: number): () => number {
  const span = end - start;
  return () => {
    for (;;) {
      const t = start + r.next() * span;
      const d = new Date(t);
      const hour = d.getUTCHours() + d.getUTCMinutes() / 60;
      const daily = 0.25 + 0.75 * Math.exp(-((hour - 15) ** 2) / (2 * 4.5 ** 2));
      const weekly = d.getUTCDay() === 0 || d.getUTCDay() === 6 ? 0.6 : 1;
      const growth = 0.75 + 0.5 * ((t - start) / span);
      if (r.next() * 1.25 < daily * weekly * growth) return t;
    }
  };
}

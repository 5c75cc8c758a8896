// The realtime view of one project: who is active in the last five minutes and pageviews per minute
// over the last ten. Human traffic only. Memory is bounded by time (ten minutes), by a visitor cap
// and by a per-visitor cap; nothing here reads the clock, `now` is always passed in.
import { PlacementOrder } from './placement-order.ts';

export const ACTIVE_WINDOW_MS = 5 * 60_000;
export const RETAIN_MS = 10 * 60_000;
export const MINUTES = 10;
export const DEFAULT_MAX_VISITORS = 50_000;
export const MAX_VIEWS_PER_VISITOR = 100;

export type RealtimeRecord = {
  visitor: string;
  ts: number;
  path: string | null;
  country: string | null;
  isPageview: boolean;
  human: boolean;
};

export type Row = { value: string; visitors: number };
export type ActiveVisitor = {
  visitor: string;
  page: string | null;
  country: string | null;
  lastSeen: string;
  pageviews: number;
};
export type RealtimeSnapshot = {
  visitors: number;
  pageviewsPerMinute: number;
  pages: Row[];
  countries: Row[];
  window: { from: string; to: string };
  activeVisitors: ActiveVisitor[];
};

type VisitorState = {
  visitor: string;
  lastSeen: number;
  // The lastSeen the entry had when it was last placed at the end of `order` (see record).
  placedAt: number;
  page: string | null;
  country: string | null;
  // The visitor's pageviews, newest last, at most MAX_VIEWS_PER_VISITOR: their times and paths side by side,
  // so a pageview kept for minutes is two array slots rather than an object of its own.
  viewTs: number[];
  viewPath: (string | null)[];
};

// A visitor is placed again at the end of the order once their activity is this far past where they sit:
// the order stays one of activity to within it, and most events then only update the entry.
const REORDER_MS = 30_000;

export class RealtimeWindow {
  private readonly visitors = new Map<string, VisitorState>();
  // The visitors by activity (to within REORDER_MS), so stale visitors sit at the front and pruning stops
  // early; an entry then outlives RETAIN_MS by at most REORDER_MS, unseen by reads, which look five minutes back.
  private readonly order = new PlacementOrder(this.visitors, (v: VisitorState) => v.visitor);
  // Pageviews per whole second (epoch seconds): at most 600 keys, exact and independent of the caps.
  private readonly perSecond = new Map<number, number>();
  private readonly maxVisitors: number;
  private prunedMinute = -Infinity;

  constructor(options: { maxVisitors?: number } = {}) {
    this.maxVisitors = Math.max(1, options.maxVisitors ?? DEFAULT_MAX_VISITORS);
  }

  get visitorCount() {
    return this.visitors.size;
  }
  get bucketCount() {
    return this.perSecond.size;
  }

  record(r: RealtimeRecord): void {
    if (!r.human) return;
    this.prune(r.ts);
    if (Math.floor(r.ts / 60_000) < this.prunedMinute - (MINUTES - 1)) return; // older than any read
    let state = this.visitors.get(r.visitor);
    if (!state) {
      state = {
        visitor: r.visitor,
        lastSeen: r.ts,
        placedAt: r.ts,
        page: null,
        country: null,
        viewTs: [],
        viewPath: [],
      };
      this.visitors.set(r.visitor, state);
      this.order.place(state);
      if (this.visitors.size > this.maxVisitors) this.visitors.delete(this.order.oldest()!.visitor);
    }
    if (r.ts >= state.lastSeen) {
      state.lastSeen = r.ts;
      if (r.path !== null) state.page = r.path;
      if (r.country !== null) state.country = r.country;
    }
    if (r.isPageview) {
      insertView(state, r.ts, r.path);
      while (state.viewTs.length > 0 && state.viewTs[0] <= state.lastSeen - ACTIVE_WINDOW_MS) dropOldestView(state);
      if (state.viewTs.length > MAX_VIEWS_PER_VISITOR) dropOldestView(state);
      const second = Math.floor(r.ts / 1000);
      this.perSecond.set(second, (this.perSecond.get(second) ?? 0) + 1);
    }
    if (state.lastSeen - state.placedAt > REORDER_MS) {
      state.placedAt = state.lastSeen;
      this.order.place(state);
    }
  }

  // A visitor who turned out not to be human traffic (marked internal): gone from the active visitors at
  // once, and the pageviews still kept for them (their last five minutes) leave the per-minute counts.
  forget(visitor: string): void {
    const state = this.visitors.get(visitor);
    if (!state) return;
    this.visitors.delete(visitor);
    for (const ts of state.viewTs) {
      const second = Math.floor(ts / 1000);
      const left = (this.perSecond.get(second) ?? 0) - 1;
      if (left > 0) this.perSecond.set(second, left);
      else this.perSecond.delete(second);
    }
  }

  // Visitors with any event in (now - 5 min, now].
  online(now: number): number {
    let n = 0;
    for (const v of this.visitors.values()) if (isActive(v.lastSeen, now)) n++;
    return n;
  }

  // Pageviews in each of the last ten whole minutes, oldest first, the current (partial) minute last.
  viewsPerMinute(now: number): number[] {
    const current = Math.floor(now / 60_000);
    const out = new Array<number>(MINUTES).fill(0);
    const nowSecond = Math.floor(now / 1000);
    for (const [second, count] of this.perSecond) {
      if (second > nowSecond) continue;
      const slot = MINUTES - 1 - (current - Math.floor(second / 60));
      if (slot >= 0 && slot < MINUTES) out[slot] += count;
    }
    return out;
  }

  // pageviewsPerMinute: pageviews in the last 300 whole seconds (current second included) / 5,
  // rounded to one decimal. pages: distinct visitors who viewed the path in the window. countries:
  // each active visitor once, by their latest known country (unknown countries are left out).
  snapshot(now: number, limit = 50, rows = 100): RealtimeSnapshot {
    this.prune(now);
    const from = now - ACTIVE_WINDOW_MS;
    const active: [string, VisitorState][] = [];
    for (const entry of this.visitors) if (isActive(entry[1].lastSeen, now)) active.push(entry);

    const pages = new Map<string, number>();
    const countries = new Map<string, number>();
    for (const [, v] of active) {
      const seen = new Set<string>();
      for (let i = 0; i < v.viewTs.length; i++) {
        const path = v.viewPath[i]!;
        if (path !== null && isActive(v.viewTs[i]!, now)) seen.add(path);
      }
      for (const path of seen) pages.set(path, (pages.get(path) ?? 0) + 1);
      if (v.country !== null) countries.set(v.country, (countries.get(v.country) ?? 0) + 1);
    }

    const nowSecond = Math.floor(now / 1000);
    let views = 0;
    for (const [second, count] of this.perSecond) {
      if (second <= nowSecond && second > nowSecond - ACTIVE_WINDOW_MS / 1000) views += count;
    }

    active.sort((a, b) => b[1].lastSeen - a[1].lastSeen || (a[0] < b[0] ? -1 : 1));
    return {
      visitors: active.length,
      pageviewsPerMinute: Math.round((views / 5) * 10) / 10,
      pages: topRows(pages, rows),
      countries: topRows(countries, rows),
      window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
      activeVisitors: active.slice(0, Math.max(0, limit)).map(([visitor, v]) => ({
        visitor,
        page: v.page,
        country: v.country,
        lastSeen: new Date(v.lastSeen).toISOString(),
        pageviews: v.viewTs.filter((ts) => isActive(ts, now)).length,
      })),
    };
  }

  // Drops what no read can need any more: data older than the start of the oldest reported minute.
  private prune(now: number): void {
    const minute = Math.floor(now / 60_000);
    if (minute > this.prunedMinute) {
      // buckets only go stale when the minute turns
      this.prunedMinute = minute;
      const oldestSecond = (minute - (MINUTES - 1)) * 60;
      for (const second of this.perSecond.keys()) if (second < oldestSecond) this.perSecond.delete(second);
    }
    const cutoff = now - RETAIN_MS;
    for (let v = this.order.oldest(); v !== null && v.lastSeen <= cutoff; v = this.order.oldest()) {
      this.visitors.delete(v.visitor); // in record order; a late out-of-order record may linger a while
    }
  }
}

const isActive = (ts: number, now: number) => ts > now - ACTIVE_WINDOW_MS && ts <= now;

function insertView(v: VisitorState, ts: number, path: string | null): void {
  let i = v.viewTs.length;
  while (i > 0 && v.viewTs[i - 1] > ts) i--;
  if (i === v.viewTs.length) (v.viewTs.push(ts), v.viewPath.push(path));
  else (v.viewTs.splice(i, 0, ts), v.viewPath.splice(i, 0, path));
}

function dropOldestView(v: VisitorState): void {
  v.viewTs.shift();
  v.viewPath.shift();
}

function topRows(counts: Map<string, number>, rows: number): Row[] {
  return [...counts]
    .map(([value, visitors]) => ({ value, visitors }))
    .sort((a, b) => b.visitors - a.visitors || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, Math.max(0, rows));
}

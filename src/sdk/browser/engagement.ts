// Time visible on the current page and its deepest scroll, reported when the page is hidden or left.
// Pure bookkeeping: the client decides when to call take() and sends the result.

export type Engagement = {
  /** A new page starts: reset the clock and depth. */
  reset(now: number, visible: boolean, depth: number): void;
  visible(now: number): void;
  hidden(now: number): void;
  scrolled(depth: number): void;
  /** The totals for this page, or null when nothing changed since the last take(). */
  take(now: number): { timeMs: number; scrollDepth: number } | null;
};

export function createEngagement(): Engagement {
  let visibleSince: number | null = null;
  let accumulated = 0;
  let depth = 0;
  let reported = -1;

  return {
    reset(now, visible, startDepth) {
      visibleSince = visible ? now : null;
      accumulated = 0;
      depth = startDepth;
      reported = -1;
    },
    visible(now) {
      if (visibleSince === null) visibleSince = now;
    },
    hidden(now) {
      if (visibleSince !== null) accumulated += now - visibleSince;
      visibleSince = null;
    },
    scrolled(d) {
      if (d > depth) depth = d;
    },
    take(now) {
      const timeMs = Math.max(0, Math.round(accumulated + (visibleSince === null ? 0 : now - visibleSince)));
      if (timeMs === reported || timeMs === 0) return null;
      reported = timeMs;
      return { timeMs, scrollDepth: depth };
    },
  };
}

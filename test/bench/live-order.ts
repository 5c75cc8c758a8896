// `npm run bench:live-order`: what the project actor's live maps cost an event over a long run, when
// visitors keep coming and going: the realtime window's record() (every human event) and the sessionizer's
// place() (every event), at 5,000, 20,000 and 50,000 visitors online at once. Each visitor sends an event
// every ~15 s for ~6 minutes and is then replaced by a new one; simulated time runs at that pace, so the
// maps move, prune and (at 50,000: the window's cap, and the sessionizer's 100,000 live sessions) evict as
// they do on a busy site. Prints µs an event in each of the run's last three quarters (the first fills
// the maps). In process, no database. BENCH_EVENTS (2,000,000 a size) tunes it.
import { performance } from 'node:perf_hooks';
import { RealtimeWindow } from '../../actors/realtime-window.ts';
import { Sessionizer } from '../../actors/sessionizer.ts';

const events = Number(process.env.BENCH_EVENTS ?? 2_000_000);
const T0 = Date.parse('2026-11-25T00:00:00Z');

type Visitor = { id: string; until: number };

/** Runs `events` events from `online` visitors at once through `step`; answers µs an event, per stretch. */
function run(online: number, step: (visitor: string, ts: number, n: number) => void): number[] {
  let next = 0;
  const visitors: Visitor[] = Array.from({ length: online }, () => ({
    id: `v${next++}`,
    until: T0 + Math.random() * 360_000,
  }));
  const pace = 15_000 / online; // ms of simulated time an event
  const stretch = Math.floor(events / 4);
  const out: number[] = [];
  let start = performance.now();
  let now = T0;
  for (let n = 1; n <= events; n++) {
    now += pace;
    const i = n % online;
    if (now > visitors[i]!.until) visitors[i] = { id: `v${next++}`, until: now + 360_000 };
    step(visitors[i]!.id, now, n);
    if (n % stretch === 0) {
      const t = performance.now();
      out.push(((t - start) * 1000) / stretch);
      start = t;
    }
  }
  return out.slice(1); // the first stretch fills the maps
}

const rows: Record<string, Record<string, string>> = {};
for (const online of [5_000, 20_000, 50_000]) {
  const window = new RealtimeWindow();
  const realtime = run(online, (visitor, ts, n) =>
    window.record({ visitor, ts, path: '/p', country: 'DE', isPageview: n % 3 === 0, human: true }),
  );
  const sessions = new Sessionizer();
  const sessionize = run(
    online,
    (visitor, ts, n) => void sessions.place({ visitor, ts, name: n % 3 === 0 ? 'pageview' : 'click', path: '/p' }),
  );
  const show = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  rows[`${online.toLocaleString('en')} online`] = {
    'realtime record (µs)': show(realtime),
    'sessionizer place (µs)': show(sessionize),
  };
}
console.log(
  `µs an event, ${events.toLocaleString('en')} events a size, in three stretches after the first (a long run: the maps stay busy)`,
);
console.table(rows);

import t from 'tap';
import { MAX_VIEWS_PER_VISITOR, RealtimeWindow, type RealtimeRecord } from '../../actors/realtime-window.ts';

const T0 = Date.parse('2025-03-01T10:00:00.000Z'); // a whole minute
const MIN = 60_000;
const view = (
  visitor: string,
  ts: number,
  path: string,
  country: string | null = 'DE',
  human = true,
): RealtimeRecord => ({ visitor, ts, path, country, isPageview: true, human });

t.test('five-minute window: visitors, pages, countries, rate', async (t) => {
  const w = new RealtimeWindow();
  w.record(view('old', T0 - 5 * MIN, '/gone', 'FR')); // exactly five minutes before now: outside
  w.record(view('a', T0 - 4 * MIN, '/home', 'DE'));
  w.record(view('a', T0 - 3 * MIN, '/pricing', 'DE'));
  w.record(view('b', T0 - 2 * MIN, '/home', 'US'));
  w.record(view('c', T0 - MIN, '/home', 'DE'));
  w.record({ visitor: 'c', ts: T0 - 30_000, path: '/docs', country: 'DE', isPageview: false, human: true });
  w.record(view('d', T0 - 10_000, '/blog', null));
  w.record(view('bot', T0 - 5000, '/home', 'CN', false));

  const snap = w.snapshot(T0, 2);
  t.equal(snap.visitors, 4);
  t.equal(w.online(T0), 4);
  t.equal(snap.pageviewsPerMinute, 1, '5 pageviews in the window / 5 minutes');
  t.same(snap.pages, [
    { value: '/home', visitors: 3 },
    { value: '/blog', visitors: 1 },
    { value: '/pricing', visitors: 1 },
  ]);
  t.same(
    snap.countries,
    [
      { value: 'DE', visitors: 2 },
      { value: 'US', visitors: 1 },
    ],
    'unknown country left out',
  );
  t.same(snap.window, { from: '2025-03-01T09:55:00.000Z', to: '2025-03-01T10:00:00.000Z' });
  t.same(
    snap.activeVisitors,
    [
      { visitor: 'd', page: '/blog', country: null, lastSeen: '2025-03-01T09:59:50.000Z', pageviews: 1 },
      { visitor: 'c', page: '/docs', country: 'DE', lastSeen: '2025-03-01T09:59:30.000Z', pageviews: 1 },
    ],
    'most recent first, cut at limit, page follows the latest event',
  );

  const later = w.snapshot(T0 + 3 * MIN + 30_000, 10);
  t.same(
    later.activeVisitors.map((v) => v.visitor),
    ['d', 'c'],
    'a and b aged out (window starts 09:58:30)',
  );
  t.equal(later.pageviewsPerMinute, 0.4, '2 pageviews / 5, one decimal');
});

t.test('pageviewsPerMinute keeps one decimal', async (t) => {
  const w = new RealtimeWindow();
  for (let i = 0; i < 7; i++) w.record(view(`v${i}`, T0 - i * 1000, '/'));
  t.equal(w.snapshot(T0).pageviewsPerMinute, 1.4);
  const w2 = new RealtimeWindow();
  for (let i = 0; i < 3; i++) w2.record(view('v', T0 - i * 1000, '/'));
  t.equal(w2.snapshot(T0).pageviewsPerMinute, 0.6);
  t.equal(w2.snapshot(T0).activeVisitors[0].pageviews, 3);
});

t.test('views per minute: ten exact integers at minute boundaries', async (t) => {
  const w = new RealtimeWindow();
  // minute m (T0 + m*MIN) gets m+1 pageviews, at its first and last millisecond alternately.
  for (let m = 0; m < 12; m++) {
    for (let k = 0; k <= m; k++) w.record(view(`v${m}-${k}`, T0 + m * MIN + (k % 2 === 0 ? 0 : MIN - 1), '/'));
  }
  const now = T0 + 11 * MIN; // first millisecond of minute 11
  t.same(
    w.viewsPerMinute(now),
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 6],
    'current minute last; its later half not yet counted',
  );
  t.same(
    w.viewsPerMinute(now + MIN - 1),
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    'last millisecond of the minute: all of it',
  );
  t.same(w.viewsPerMinute(now + MIN), [4, 5, 6, 7, 8, 9, 10, 11, 12, 0], 'the minute turns');
  t.same(w.viewsPerMinute(T0 + 30 * MIN), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  for (const n of w.viewsPerMinute(now)) t.ok(Number.isInteger(n));

  const early = w.viewsPerMinute(T0 + 5 * MIN + 30_000);
  t.same(early.slice(-2), [5, 3], 'pageviews after now are not counted yet');
});

t.test('bots are excluded everywhere', async (t) => {
  const w = new RealtimeWindow();
  for (let i = 0; i < 50; i++) w.record(view(`bot${i}`, T0 - i, '/x', 'CN', false));
  t.equal(w.visitorCount, 0);
  t.same(w.viewsPerMinute(T0), new Array(10).fill(0));
  const snap = w.snapshot(T0);
  t.same([snap.visitors, snap.pageviewsPerMinute, snap.pages, snap.countries, snap.activeVisitors], [0, 0, [], [], []]);
});

t.test('memory is bounded', async (t) => {
  const w = new RealtimeWindow({ maxVisitors: 1000 });
  // Two hours of traffic, one pageview every 100 ms from a rotating set of 5000 visitors.
  for (let i = 0; i < 72_000; i++) w.record(view(`v${i % 5000}`, T0 + i * 100, `/p${i % 37}`));
  t.ok(w.visitorCount <= 1000, `visitors capped (${w.visitorCount})`);
  t.ok(w.bucketCount <= 600, `per-second buckets capped (${w.bucketCount})`);
  const end = T0 + 72_000 * 100;
  t.same(w.viewsPerMinute(end).slice(0, 9), new Array(9).fill(600), '600 per whole minute');

  // A single visitor hammering one page keeps at most MAX_VIEWS_PER_VISITOR views.
  const one = new RealtimeWindow();
  for (let i = 0; i < 10_000; i++) one.record(view('v', T0 + i * 10, '/'));
  t.equal(one.snapshot(T0 + 100_000).activeVisitors[0].pageviews, MAX_VIEWS_PER_VISITOR);
  t.equal(one.snapshot(T0 + 100_000).pageviewsPerMinute, 2000, 'the rate is exact regardless of the cap');

  // Idle visitors are dropped once older than ten minutes.
  const idle = new RealtimeWindow();
  idle.record(view('a', T0, '/'));
  idle.record(view('b', T0 + MIN, '/'));
  idle.snapshot(T0 + 10 * MIN + 1);
  t.equal(idle.visitorCount, 1);
  t.equal(idle.online(T0 + 10 * MIN + 1), 0);
});

t.test(
  'a visitor active all along does not keep idle ones past ten minutes (by more than the reorder step)',
  async (t) => {
    const w = new RealtimeWindow();
    for (let i = 0; i < 180; i++) {
      // half an hour, every 10 s: one steady visitor, one who comes once
      w.record(view('steady', T0 + i * 10_000, '/'));
      w.record(view(`once${i}`, T0 + i * 10_000, '/x'));
    }
    // At the last record (T0 + 1790 s), those seen in the last ten minutes are i = 120…179; the order is
    // kept to within 30 s, so up to three more (i = 117…119) may linger a moment.
    t.ok(
      w.visitorCount >= 61 && w.visitorCount <= 64,
      `kept ${w.visitorCount}: the steady one and the last ten minutes'`,
    );
    t.equal(w.online(T0 + 1790_000), 31, 'online counts the last five minutes only: i = 150…179 and the steady one');
  },
);

t.test('at the cap, the least recently active visitor goes (to within 30 s)', async (t) => {
  const w = new RealtimeWindow({ maxVisitors: 3 });
  w.record(view('a', T0, '/'));
  w.record(view('b', T0 + 1000, '/'));
  w.record(view('c', T0 + 2000, '/'));
  w.record(view('a', T0 + 40_000, '/')); // 40 s on: a is placed again, after c
  w.record(view('d', T0 + 41_000, '/'));
  t.same(
    w
      .snapshot(T0 + 42_000)
      .activeVisitors.map((v) => v.visitor)
      .sort(),
    ['a', 'c', 'd'],
    'b went',
  );
  w.record(view('e', T0 + 43_000, '/'));
  t.same(
    w
      .snapshot(T0 + 44_000)
      .activeVisitors.map((v) => v.visitor)
      .sort(),
    ['a', 'd', 'e'],
    'then c',
  );
  w.forget('d');
  w.record(view('f', T0 + 45_000, '/'));
  w.record(view('g', T0 + 46_000, '/'));
  t.same(
    w
      .snapshot(T0 + 47_000)
      .activeVisitors.map((v) => v.visitor)
      .sort(),
    ['e', 'f', 'g'],
    'a forgotten visitor holds no place: then a',
  );
});

t.test('forget: a visitor found not human leaves the visitors and the per-minute counts', async (t) => {
  const w = new RealtimeWindow();
  w.record(view('me', T0 - 2 * MIN, '/admin'));
  w.record(view('me', T0 - MIN, '/admin'));
  w.record(view('you', T0 - MIN, '/home'));
  t.same(w.viewsPerMinute(T0).slice(-3), [1, 2, 0]);
  w.forget('me');
  w.forget('nobody'); // not there: nothing changes
  const snap = w.snapshot(T0);
  t.equal(snap.visitors, 1);
  t.same(snap.pages, [{ value: '/home', visitors: 1 }]);
  t.same(w.viewsPerMinute(T0).slice(-3), [0, 1, 0], 'their two pageviews are gone, the other stays');
  t.equal(w.bucketCount, 1, 'emptied seconds are dropped');
});

// A flush's rollup marks (src/db/rollup-marks.ts flushMarks): which events are marked one by one and which
// days as a whole, by day and count; the statement that writes them is exercised through the event store
// (test/db/event-store.test.ts) and read back by the rollup tests.
import t from 'tap';
import { EVENT_MARKS_PER_DAY, EVENT_MARKS_TODAY, flushMarks, utcDays } from '../../src/db/rollup-marks.ts';

const today = '2026-11-27';
const events = (prefix: string, n: number, ts: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, ts, session_id: `${prefix}-s${i % 3}` }));

t.test("today's events one by one up to EVENT_MARKS_TODAY, more than a past day's limit", async (t) => {
  t.ok(EVENT_MARKS_TODAY > EVENT_MARKS_PER_DAY, "today's limit is the larger");
  const live = flushMarks(events('a', EVENT_MARKS_TODAY, '2026-11-27T22:10:00.000Z'), today);
  t.equal(live.events.length, EVENT_MARKS_TODAY, 'each marked');
  t.same(live.days, [], 'no whole day');
  t.same(live.events[0], { id: 'a0', ts: '2026-11-27T22:10:00.000Z', session: 'a-s0' }, 'id, ts and session');
  const bulk = flushMarks(events('b', EVENT_MARKS_TODAY + 1, '2026-11-27T09:00:00.000Z'), today);
  t.same([bulk.days, bulk.events.length], [[today], 0], 'one more: today whole, no event marks');
});

t.test("a past day's events one by one up to EVENT_MARKS_PER_DAY", async (t) => {
  const few = flushMarks(events('c', EVENT_MARKS_PER_DAY, '2026-11-26T23:59:59.999Z'), today);
  t.same([few.days, few.events.length], [[], EVENT_MARKS_PER_DAY], 'a trickle of late events, each marked');
  const many = flushMarks(events('d', EVENT_MARKS_PER_DAY + 1, '2026-11-20T10:00:00.000Z'), today);
  t.same([many.days, many.events.length], [['2026-11-20'], 0], 'a backfill: the day whole');
});

t.test('each day by its own count; a day after today whole; marks in day order', async (t) => {
  const mixed = flushMarks(
    [
      ...events('e', EVENT_MARKS_PER_DAY + 1, '2026-11-27T08:00:00.000Z'), // today: within its limit
      ...events('f', EVENT_MARKS_PER_DAY + 1, '2026-11-25T08:00:00.000Z'), // a past day: over its limit
      ...events('g', 2, '2026-11-26T08:00:00.000Z'),
      ...events('h', 1, '2026-11-28T00:00:00.000Z'), // after today by this clock
    ],
    today,
  );
  t.same(mixed.days, ['2026-11-25', '2026-11-28'], 'the past day over its limit, and the next day');
  t.equal(mixed.events.length, EVENT_MARKS_PER_DAY + 1 + 2, "today's and the other past day's events");
  t.same([...new Set(mixed.events.map((e) => e.ts.slice(0, 10)))], ['2026-11-26', today], 'in day order');
  t.same(mixed.sessions, [], 'no session marks');
});

t.test('days of timestamps in any ISO form', async (t) => {
  t.same(utcDays(['2026-11-27T23:30:00-02:00', '2026-11-27T00:30:00+02:00', '2026-11-27T12:00:00.000Z']), [
    '2026-11-26',
    today,
    '2026-11-28',
  ]);
  const offset = flushMarks([{ id: 'x', ts: '2026-11-28T00:30:00+02:00', session_id: 's' }], today);
  t.same([offset.days, offset.events.length], [[], 1], 'a local time whose UTC day is today');
});

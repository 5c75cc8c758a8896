// A flush's rollup marks (src/db/rollup-marks.ts flushMarks): which events are marked one by one and which
// days as a whole, by day and count. The statement that writes them runs through the event store
// (test/db/event-store.test.ts), and the rollup tests read them back.
import t from 'tap';
import { EVENT_MARKS_PER_DAY, flushMarks, utcDays } from '../../src/db/rollup-marks.ts';

const today = '2026-11-27';
const events = (prefix: string, n: number, ts: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, ts, session_id: `${prefix}-s${i % 3}` }));

t.test('the events of a day one by one up to EVENT_MARKS_PER_DAY, more mark the day whole', async (t) => {
  const few = flushMarks(events('a', EVENT_MARKS_PER_DAY, '2026-11-27T22:10:00.000Z'), today);
  t.same([few.days, few.events.length], [[], EVENT_MARKS_PER_DAY], "today's events, each marked");
  t.same(few.events[0], { id: 'a0', ts: '2026-11-27T22:10:00.000Z', session: 'a-s0' }, 'id, ts and session');
  const many = flushMarks(events('b', EVENT_MARKS_PER_DAY + 1, '2026-11-27T09:00:00.000Z'), today);
  t.same([many.days, many.events.length], [[today], 0], 'one more: today whole, no event marks');
  const late = flushMarks(events('c', EVENT_MARKS_PER_DAY, '2026-11-26T23:59:59.999Z'), today);
  t.same([late.days, late.events.length], [[], EVENT_MARKS_PER_DAY], 'a trickle of late events, each marked');
  const backfill = flushMarks(events('d', EVENT_MARKS_PER_DAY + 1, '2026-11-20T10:00:00.000Z'), today);
  t.same([backfill.days, backfill.events.length], [['2026-11-20'], 0], 'a backfill: the day whole');
});

t.test('each day by its own count; a day after today whole; marks in day order', async (t) => {
  const mixed = flushMarks(
    [
      ...events('e', 3, '2026-11-27T08:00:00.000Z'),
      ...events('f', EVENT_MARKS_PER_DAY + 1, '2026-11-25T08:00:00.000Z'), // over the limit
      ...events('g', 2, '2026-11-26T08:00:00.000Z'),
      ...events('h', 1, '2026-11-28T00:00:00.000Z'), // after today by this clock
    ],
    today,
  );
  t.same(mixed.days, ['2026-11-25', '2026-11-28'], 'the day over the limit, and the next day');
  t.equal(mixed.events.length, 5, "today's and the other past day's events");
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

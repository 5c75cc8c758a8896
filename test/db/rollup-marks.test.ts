// A flush's rollup marks (src/db/rollup-marks.ts flushMarks): a past day's events one by one up to
// EVENT_MARKS_PER_DAY, today's up to EVENT_MARKS_TODAY, more mark the day whole, and a day after today
// always goes whole (the statement drops the days the database calls future).
import t from 'tap';
import { EVENT_MARKS_PER_DAY, EVENT_MARKS_TODAY, flushMarks } from '../../src/db/rollup-marks.ts';

const today = '2026-11-27';
const events = (day: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${day}-${i}`,
    ts: new Date(Date.parse(`${day}T10:00:00Z`) + i * 1_000).toISOString(),
    session_id: `s${i % 7}`,
  }));

t.test('a past day: one by one up to its bound, then whole', async (t) => {
  const few = flushMarks(events('2026-11-26', EVENT_MARKS_PER_DAY), today);
  t.equal(few.events.length, EVENT_MARKS_PER_DAY);
  t.same(few.days, []);
  t.same(few.events[0], { id: '2026-11-26-0', ts: '2026-11-26T10:00:00.000Z', session: 's0' });
  const many = flushMarks(events('2026-11-26', EVENT_MARKS_PER_DAY + 1), today);
  t.same(many, { days: ['2026-11-26'], events: [], sessions: [] });
});

t.test("today: one by one up to today's bound, then whole", async (t) => {
  t.ok(EVENT_MARKS_TODAY > EVENT_MARKS_PER_DAY);
  const busy = flushMarks(events(today, EVENT_MARKS_TODAY), today);
  t.equal(busy.events.length, EVENT_MARKS_TODAY);
  t.same(busy.days, []);
  t.same(flushMarks(events(today, EVENT_MARKS_TODAY + 1), today).days, [today]);
});

t.test('each day by its own count, a future day whole', async (t) => {
  const mixed = flushMarks(
    [...events('2026-11-25', 3), ...events(today, EVENT_MARKS_PER_DAY + 5), ...events('2026-11-28', 1)],
    today,
  );
  t.same(mixed.days, ['2026-11-28']);
  t.equal(mixed.events.length, 3 + EVENT_MARKS_PER_DAY + 5);
});

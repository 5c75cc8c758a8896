// An event's time as stored and sent on: ISO 8601 in UTC to the millisecond, exactly what
// Date.prototype.toISOString makes, without making a Date each time. Every event is stamped this way at
// ingest; toISOString of a new Date cost about 0.7 µs an event (`npm run bench:ingest:stages`). The day
// changes rarely between events, so its part (`2026-11-25T`) is kept from the last call, and an event
// without a `ts` takes its request's arrival time, so the whole string of the last call is kept too.

const MS_PER_DAY = 86_400_000;
/** The last valid time (ECMAScript's bound); the rest of its day is not one. */
const MAX_TIME = 8.64e15;
const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let lastMs = NaN;
let lastText = '';
let lastDay = NaN;
let lastDayText = '';

/** `new Date(ms).toISOString()` for a valid time (a finite ms within ±8.64e15; others throw as it does). */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  const day = Math.floor(ms / MS_PER_DAY);
  if (day !== lastDay || ms > MAX_TIME) {
    const whole = new Date(ms).toISOString(); // throws a RangeError for an invalid time, as before
    lastDay = day;
    lastDayText = whole.slice(0, whole.indexOf('T') + 1);
  }
  let rest = ms - day * MS_PER_DAY;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  lastMs = ms;
  lastText = `${lastDayText}${PAD2[hour]}:${PAD2[minute]}:${PAD2[second]}.${PAD3[milli]}Z`;
  // Joined, the parts are a tree of V8 cons strings (264 bytes); reading a character makes it one flat
  // string (49 bytes, as toISOString's), which matters for a row kept in memory until its commit.
  lastText.charCodeAt(0);
  return lastText;
}

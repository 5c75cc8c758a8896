// An event's time read (readIsoTime: what valibot's isoTimestamp passes, as the moment it names), and as
// stored and sent on (isoTime): ISO 8601 in UTC to the millisecond, exactly what
// Date.prototype.toISOString makes, without making a Date each time: every event is stamped this way at
// ingest, and a new Date with its toISOString is one of the dearer steps of an event. The day
// changes rarely between events, so its part (`2026-11-25T`) is kept from the last call, and an event
// without a `ts` takes its request's arrival time, so the whole string of the last call is kept too.

const MS_PER_DAY = 86_400_000;
/** ECMAScript's bound on a time, either side of the epoch. */
const MAX_TIME = 8.64e15;
const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let lastMs = NaN;
let lastText = '';
let lastDay = NaN;
let lastDayText = '';

/** `new Date(ms).toISOString()`: the same string, or the same RangeError for what is not a time. */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  // Whole ms within ECMAScript's bounds, as Date.parse and Date.now answer; the rest as a Date takes it.
  if (!Number.isInteger(ms) || ms > MAX_TIME || ms < -MAX_TIME) return new Date(ms).toISOString();
  const day = Math.floor(ms / MS_PER_DAY);
  if (day !== lastDay) {
    const whole = new Date(ms).toISOString();
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

const OFFSET = / ?([+-]\d\d)(:?\d\d)?$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** An ISO 8601 date-time, as valibot's isoTimestamp passes it, in ms since the epoch; NaN when it names
 *  no real moment. Date.parse alone reads neither an hour-only offset (`-05`) nor a space before the
 *  offset (`10:00:00 +05:00`), and rolls a day the month does not have (`2024-02-31`) into the next. */
export function readIsoTime(text: string): number {
  const ms = Date.parse(text.replace(OFFSET, (_, hours: string, minutes?: string) => hours + (minutes ?? ':00')));
  if (!Number.isFinite(ms)) return NaN;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (day > DAYS_IN_MONTH[month - 1]! || (month === 2 && day === 29 && !isLeapYear(year))) return NaN;
  return ms;
}

import t from 'tap';
import * as v from 'valibot';
import { isoTime, readIsoTime } from '../../src/ingest/iso-time.ts';

t.test('isoTime writes what toISOString writes, whatever came before it', async (t) => {
  let seed = 0x5eed_1e55;
  const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const day = 86_400_000;
  const now = Date.UTC(2026, 10, 25, 17, 4, 25, 123);
  const cases = [
    0,
    -1,
    1,
    now,
    now + 1,
    now - 1,
    day - 1,
    day,
    -day,
    -day - 1, // the epoch, and days' edges either side
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(2024, 2, 1),
    Date.UTC(2100, 1, 28, 12), // leap days
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10000, 0, 1),
    Date.UTC(-1, 0, 1, 1, 2, 3, 4), // years of six digits
    8.64e15,
    -8.64e15,
  ];
  // Times near now (one request's events, a day's), then anywhere in four centuries, then again near now.
  for (let i = 0; i < 3_000; i++) cases.push(now + Math.floor((rand() - 0.5) * 2 * day));
  for (let i = 0; i < 3_000; i++) cases.push(Math.floor((rand() - 0.5) * 400 * 365 * day));
  for (let i = 0; i < 1_000; i++) cases.push(now + Math.floor(rand() * 1_000));
  let wrong = 0;
  for (const ms of cases) {
    if (isoTime(ms) !== new Date(ms).toISOString()) wrong++;
    if (isoTime(ms) !== new Date(ms).toISOString()) wrong++; // the same time twice: the kept string
  }
  t.equal(wrong, 0, `${cases.length} times, each twice`);
});

t.test('isoTime refuses what is not a time, as toISOString does', async (t) => {
  for (const ms of [NaN, Infinity, -Infinity, 8.64e15 + 1, -8.64e15 - 1])
    t.throws(() => isoTime(ms), RangeError, String(ms));
  isoTime(8.64e15); // the last valid time: its day is the one kept
  t.throws(() => isoTime(8.64e15 + 1), RangeError, 'past the last valid time on the kept day');
  t.equal(isoTime(1), '1970-01-01T00:00:00.001Z', 'and carries on after a refusal');
  // A fraction of a ms is dropped toward zero, as a Date drops it.
  for (const ms of [1.5, -1.5, Date.UTC(2026, 10, 25) + 0.999])
    t.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
});

t.test('readIsoTime: every offset form ISO 8601 allows, and only days their month has', async (t) => {
  const at = Date.UTC(2026, 10, 26, 7, 51, 15, 120);
  for (const text of [
    '2026-11-26T07:51:15.120Z',
    '2026-11-26T02:51:15.120-05:00',
    '2026-11-26T02:51:15.120-0500',
    '2026-11-26T02:51:15.120-05',
    '2026-11-26T08:51:15.120+01',
    '2026-11-26 07:51:15.120Z',
    '2026-11-26T02:51:15.120 -05:00',
    '2026-11-26T02:51:15.120 -0500',
    '2026-11-26 02:51:15.120-05',
  ])
    t.equal(readIsoTime(text), at, text);
  // Every form valibot's isoTimestamp passes is read (the ingest schema checks both).
  const schema = v.pipe(v.string(), v.isoTimestamp());
  for (const text of [
    '2026-11-26T02:51:15.120 -05:00',
    '2026-11-26T02:51:15.120 -05',
    '2026-11-26T07:51:15.1204567Z',
  ]) {
    t.ok(v.is(schema, text) && Number.isFinite(readIsoTime(text)), `${text}: valibot's and read`);
  }
  t.equal(readIsoTime('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29), 'a leap day');
  t.equal(readIsoTime('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29), 'a leap day of a century divisible by 400');
  for (const text of [
    '2024-02-31T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T12:00:00+02:00',
    '2026-13-01T00:00:00Z',
    'not a time',
  ]) {
    t.ok(Number.isNaN(readIsoTime(text)), `${text}: no such moment`);
  }
});

// The ISO 8601 date-time a request may name (a range's from and to, a token's expiry, an annotation's date).
// It lives beside the range reads that parse it; routes take it from here.
import * as v from 'valibot';

/** Every date-time a client sends lies in these years (docs/limits.md): PostgreSQL has no year 0, and
 *  JavaScript writes years past 9999 in a form it cannot read; a range's arithmetic stays inside both. */
export const EARLIEST_DATE = new Date('1970-01-01T00:00:00Z');
export const LATEST_DATE = new Date('9999-01-01T00:00:00Z');
export const DATE_RANGE_MESSAGE = 'must lie between 1970-01-01 and 9999-01-01';
export const isAcceptedDate = (d: Date) => d >= EARLIEST_DATE && d < LATEST_DATE;

export const dateTime = v.pipe(
  v.string(),
  v.check(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T00:00:00Z',
  ),
  v.transform((s) => new Date(s)),
  v.check(isAcceptedDate, DATE_RANGE_MESSAGE),
);

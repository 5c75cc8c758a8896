// Valibot pieces shared by route declarations: ids, date-times, origins, paging.
import * as v from 'valibot';

export const projectIdSchema = v.pipe(
  v.string(),
  v.regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    'must be 1–63 lower-case letters, digits, _ or -, starting with a letter or digit',
  ),
);

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

export const origin = v.pipe(
  v.string(),
  v.regex(
    /^https?:\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i,
    'must be an origin such as https://example.com (a leading *. allows subdomains)',
  ),
  v.transform((s) => s.toLowerCase()),
);

/** Checks that a PATCH body sends at least one field. */
export const atLeastOneField = <T extends object>(o: T) => Object.keys(o).length > 0;

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** `limit` of a paged read: digits, 1 to 100, default 20. */
export const pageLimit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,3}$/, 'must be 1 to 100'),
    v.transform(Number),
    v.minValue(1, 'must be 1 to 100'),
    v.maxValue(100, 'must be 1 to 100'),
  ),
  '20',
);

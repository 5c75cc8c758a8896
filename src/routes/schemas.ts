// Valibot pieces shared by route declarations: ids, date-times, origins, paging.
import * as v from 'valibot';

export const projectIdSchema = v.pipe(
  v.string(),
  v.regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    'must be 1–63 lower-case letters, digits, _ or -, starting with a letter or digit',
  ),
);

export { dateTime, DATE_RANGE_MESSAGE, EARLIEST_DATE, LATEST_DATE, isAcceptedDate } from '../query/date-time.ts';

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

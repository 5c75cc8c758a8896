// The ISO 8601 date-time a request may name (a range's from and to, a token's expiry, an annotation's date).
// It lives beside the range reads that parse it; routes take it from here.
import * as v from 'valibot';

export const dateTime = v.pipe(
  v.string(),
  v.check(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T00:00:00Z',
  ),
  v.transform((s) => new Date(s)),
);

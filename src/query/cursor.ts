// Opaque keyset cursors: the sort key of a page's last row, as base64url JSON. A cursor that does not
// decode is a 400 naming query.cursor, never a silent first page.
import { HttpError } from '../errors.ts';
import { isAcceptedDate } from './date-time.ts';

export type Keyset = { at: Date; id: string };

export const encodeCursor = (k: Keyset) =>
  Buffer.from(JSON.stringify([k.at.toISOString(), k.id])).toString('base64url');

export function decodeCursor(cursor: string | undefined): Keyset | null {
  if (cursor === undefined) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const date = typeof at === 'string' ? new Date(at) : null;
    if (date && isAcceptedDate(date) && typeof id === 'string' && !id.includes('\u0000')) return { at: date, id };
  } catch {
    // falls through to the error below
  }
  throw new HttpError('VALIDATION_FAILED', 'cursor is not one this API gave out.', [
    { field: 'query.cursor', message: 'unknown cursor' },
  ]);
}

/** A page from rows read with `limit + 1`: the first `limit`, and a cursor to the next page only when the
 *  extra row says there is one (a last page that is exactly full ends with null, not an empty page). */
export function page<T>(rows: T[], limit: number, key: (row: T) => Keyset): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const shown = rows.slice(0, limit);
  return { rows: shown, nextCursor: encodeCursor(key(shown[limit - 1]!)) };
}

// Reads a long result (an export) a page at a time without holding the database between pages. The query
// runs once into a cursor declared WITH HOLD, whose rows PostgreSQL keeps after the statement ends; each
// page is then one short FETCH. On the embedded database (one session shared by every connection) ingest's
// flushes run between the pages instead of waiting for the whole export, as they did behind a portal.
import type { PendingQuery, Sql } from 'postgres';

/** Pages of `query`'s rows, `pageSize` at a time; the cursor is closed however the reader stops. */
export type PagedRead = <R extends object>(query: PendingQuery<R[]>, pageSize: number) => AsyncGenerator<R[]>;

export function createPagedRead(sql: Sql, embedded: boolean): PagedRead {
  // Cursor names in use: a held cursor belongs to the session (the embedded one is shared), and a name is
  // part of the DECLARE text the client prepares, so names are reused (the lowest free) to keep those few.
  const taken = new Set<number>();
  const claim = () => {
    let i = 0;
    while (taken.has(i)) i++;
    taken.add(i);
    return i;
  };
  return async function* pagedRead<R extends object>(query: PendingQuery<R[]>, pageSize: number) {
    // PostgreSQL: a held cursor lives on its connection, so the export keeps one (heavy reads have a few
    // slots of the pool). Embedded: every connection is the one session, and the server's client has one.
    const reserved = embedded ? null : await sql.reserve();
    const db = reserved ?? sql;
    const slot = claim();
    const name = `loupe_read_${slot}`;
    const size = Math.max(1, Math.floor(pageSize));
    let declared = false;
    try {
      await db`declare ${db(name)} no scroll cursor with hold for ${query}`;
      declared = true;
      for (;;) {
        // Not prepared: a FETCH's columns are those of whichever query its cursor holds this time.
        const rows = (await db.unsafe(`fetch forward ${size} from ${name}`, [], { prepare: false })) as unknown as R[];
        if (rows.length > 0) yield rows;
        if (rows.length < size) break;
      }
    } finally {
      // A cursor that could not be closed keeps its name taken: a DECLARE of that name would fail.
      const closed =
        !declared ||
        (await db.unsafe(`close ${name}`, [], { prepare: false }).then(
          () => true,
          () => false,
        ));
      if (closed) taken.delete(slot);
      reserved?.release();
    }
  };
}

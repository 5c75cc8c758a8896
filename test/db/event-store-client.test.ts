// The event store's tests (event-store.test.ts) with the plan run by the `postgres` client on PostgreSQL,
// as when the flush writer is turned off (FLUSH_WRITER=client) or has no connection. Embedded PGlite has
// the client alone, and event-store.test.ts covers it.
import t from 'tap';

if (process.env.DATABASE_URL) {
  process.env.TEST_FLUSH_EXECUTOR = 'client';
  await import('./event-store.test.ts');
} else t.pass('embedded: event-store.test.ts runs the one executor');

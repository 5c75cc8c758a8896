// What the benches that work on a database kept from `bench:query` share: opening it (PostgreSQL by
// DATABASE_URL, or an embedded data folder by BENCH_DATA_DIR with no server running) and the machine's load.
import { loadavg } from 'node:os';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';

/** The kept database, held by this process alone. */
export const openKeptDatabase = () =>
  openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: process.env.BENCH_DATA_DIR ?? '/nonexistent',
    log: createLogger('warn'),
    exclusive: true,
  });

/** The load averages over 1, 5 and 15 minutes, as `0.3 1.2 1.5`. */
export const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

// CPU time spent by the processes behind a benchmark phase, read from /proc (Linux): the server process
// (and its main thread alone, where the JavaScript runs: at one core it is the limit), and PostgreSQL's
// backends for one database plus the WAL writer, checkpointer and background writer.
// Throughput moves with whatever else the machine runs; CPU time per event moves much less.
import { readFileSync } from 'node:fs';
import type { Sql } from 'postgres';

export const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** `backends`: this database's backends alone, without the WAL writer, checkpointer and background writer,
 *  which also work for every other database of the server (a shared machine's other benchmarks). */
export type CpuSample = { server: number; mainThread: number; database: number; backends: number };

export function createCpuMeter(serverPid: number, sql: Sql) {
  /** Seconds of CPU used so far by the server, and by Postgres for this database (each backend counted from
   *  when it was first seen; the server's pool keeps its connections, so a sample pair measures the work between). */
  const seen = new Map<number, number>();
  async function sample(): Promise<CpuSample> {
    const rows = await sql<{ pid: number; ours: boolean }[]>`
      select pid, datname is not distinct from current_database() as ours from pg_stat_activity
      where datname = current_database() or backend_type in ('walwriter', 'checkpointer', 'background writer')`;
    let database = 0,
      backends = 0;
    for (const { pid, ours } of rows) {
      const now = ticks(pid);
      if (now === null) continue;
      if (!seen.has(pid)) seen.set(pid, now);
      database += now - seen.get(pid)!;
      if (ours) backends += now - seen.get(pid)!;
    }
    return {
      server: (ticks(serverPid) ?? 0) / TICKS_PER_SECOND,
      mainThread: (ticks(serverPid, `/task/${serverPid}`) ?? 0) / TICKS_PER_SECOND,
      database: database / TICKS_PER_SECOND,
      backends: backends / TICKS_PER_SECOND,
    };
  }
  return { sample };
}

/** utime + stime of a process (or of one of its threads), in clock ticks; null once it is gone. */
function ticks(pid: number, thread = ''): number | null {
  try {
    const fields = statFields(readFileSync(`/proc/${pid}${thread}/stat`, 'utf8'));
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The fields of a /proc stat line after the command name (which may hold spaces): the state is [0],
 *  utime and stime [11] and [12], the reaped children's cutime and cstime [13] and [14]. */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// An in-memory read model of the projects table: every request's access decision and every ingest
// key check reads it instead of the database. Any process's change refreshes it at once (the app listens for
// them, migration 0019); `refreshMs` is the fallback should a notification be missed.
import type { Sql } from 'postgres';
import type { ProjectRow } from './projects.ts';
import { listProjects } from './projects.ts';

export type ProjectDirectory = {
  get: (id: string) => ProjectRow | undefined;
  byPublicKey: (key: string) => ProjectRow | undefined;
  all: () => ProjectRow[];
  refresh: () => Promise<void>;
  stop: () => void;
};

export async function createProjectDirectory(sql: Sql, refreshMs = 5_000): Promise<ProjectDirectory> {
  let byId = new Map<string, ProjectRow>();
  let byKey = new Map<string, ProjectRow>();
  let pending: Promise<void> | null = null;

  async function load() {
    const rows = await listProjects(sql);
    byId = new Map(rows.map((r) => [r.id, r]));
    byKey = new Map(rows.map((r) => [r.public_key, r]));
  }
  let again: Promise<void> | null = null;
  // A refresh asked for during a load may follow a change that load read too early: one more load after it.
  const refresh = (): Promise<void> => {
    if (!pending) return (pending = load().finally(() => (pending = null)));
    return (again ??= pending.catch(() => {}).then(() => ((again = null), refresh())));
  };

  await load();
  const timer = setInterval(() => refresh().catch(() => {}), refreshMs);
  timer.unref();

  return {
    get: (id) => byId.get(id),
    byPublicKey: (key) => byKey.get(key),
    all: () => [...byId.values()],
    refresh,
    stop: () => clearInterval(timer),
  };
}

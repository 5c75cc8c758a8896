// Which projects keep failing their background work (checkpoints, start-up recovery, jobs): each failure is
// logged with its project, and /v2/health counts the projects failing now, while every other project goes on.
import type { Logger } from './log.ts';

export type BackgroundWork = 'checkpoint' | 'recovery' | 'job';

/** Failures in a row after which a project is reported as failing (an error line, and in /v2/health). */
export const FAILING_AFTER = 3;

type Failure = { count: number; since: Date; last: string };

export type ProjectHealth = {
  failed: (projectId: string, work: BackgroundWork, err: unknown) => void;
  succeeded: (projectId: string, work: BackgroundWork) => void;
  /** The projects with FAILING_AFTER or more failures in a row of some work, by id. */
  failing: () => { projectId: string; work: BackgroundWork; failures: number; since: string }[];
};

export function createProjectHealth(log: Logger): ProjectHealth {
  const failures = new Map<string, Failure>();
  const key = (projectId: string, work: BackgroundWork) => `${work} ${projectId}`;
  return {
    failed(projectId, work, err) {
      const k = key(projectId, work);
      const f = failures.get(k) ?? { count: 0, since: new Date(), last: '' };
      f.count++;
      f.last = err instanceof Error ? err.message : String(err);
      failures.set(k, f);
      const fields = { projectId, work, failures: f.count, since: f.since.toISOString(), err };
      if (f.count >= FAILING_AFTER) log.error('a project keeps failing; the other projects go on', fields);
      else log.warn('a project failed its background work; it is tried again', fields);
    },
    succeeded(projectId, work) {
      const k = key(projectId, work);
      if (failures.delete(k) && log.enabled('info')) log.info('a failing project recovered', { projectId, work });
    },
    failing() {
      const out = [];
      for (const [k, f] of failures) {
        if (f.count < FAILING_AFTER) continue;
        const [work, projectId] = [k.slice(0, k.indexOf(' ')), k.slice(k.indexOf(' ') + 1)];
        out.push({ projectId, work: work as BackgroundWork, failures: f.count, since: f.since.toISOString() });
      }
      return out;
    },
  };
}

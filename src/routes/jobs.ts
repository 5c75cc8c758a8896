// Scheduled jobs over HTTP (cron secret): list jobs with their last run, run one now.
import type { LogLine } from '../../actors/log-ring.ts';
import { notFound } from '../errors.ts';
import { query } from '../db/queries.ts';
import { jobs } from '../jobs/registry.ts';
import { route } from './route.ts';
import { iso } from './schemas.ts';
import { jobRunResponse, jobsResponse } from './responses.ts';

type RunRow = { job: string; started_at: Date; finished_at: Date; ok: boolean; summary: Record<string, unknown> };
type JobLineRow = Omit<LogLine, 'ts'> & { project_id: string; ts: Date };

/** Projects a job's log lines go to a statement: each takes the project's log lock (insert_logs.sql). */
const JOB_LINE_CHUNK = 50;

const runView = (r: RunRow | undefined) =>
  r ? { startedAt: iso(r.started_at), finishedAt: iso(r.finished_at), ok: r.ok, summary: r.summary } : null;

export const jobRoutes = [
  route({
    method: 'GET',
    path: '/v2/admin/jobs',
    response: jobsResponse,
    access: 'cron',
    tag: 'Jobs',
    summary: 'List the jobs with their last run.',
    async handler({ services }) {
      const last = new Map((await query<RunRow>(services.sql, 'list_last_job_runs')).map((r) => [r.job, r]));
      return {
        data: Object.entries(jobs).map(([name, job]) => ({
          name,
          description: job.description,
          lastRun: runView(last.get(name)),
        })),
      };
    },
  }),
  route({
    method: 'POST',
    path: '/v2/admin/jobs/{job}',
    response: jobRunResponse,
    access: 'cron',
    tag: 'Jobs',
    summary: 'Run one job now and answer its summary.',
    async handler({ params, services }) {
      // An own key only: `__proto__` or `toString` names no job.
      const job = Object.hasOwn(jobs, params.job!) ? jobs[params.job!] : undefined;
      if (!job) throw notFound(`No job ${params.job}. Jobs: ${Object.keys(jobs).join(', ')}.`);
      const started = new Date();
      let ok = true;
      let summary: Record<string, unknown>;
      try {
        summary = await job.run(services, started);
      } catch (err) {
        ok = false;
        summary = { error: (err as Error).message };
        services.log.error('job failed', { job: params.job, err });
      }
      const finished = new Date();
      await query(services.sql, 'insert_job_run', [params.job!, started, finished, ok, summary]);
      // One line a project, a chunk of projects a statement; then to the live streams, which read the actors' rings.
      for (let after = '', more = true; more;) {
        const lines = await query<JobLineRow>(services.sql, 'insert_job_log_lines', [
          params.job!,
          ok,
          JSON.stringify(summary),
          after,
          JOB_LINE_CHUNK,
        ]);
        for (const { project_id, ts, ...line } of lines)
          services.actors.deliver(project_id, [{ ...line, ts: ts.toISOString() }]);
        more = lines.length === JOB_LINE_CHUNK;
        after = lines.at(-1)?.project_id ?? after;
      }
      return { data: { name: params.job, ok, startedAt: iso(started), finishedAt: iso(finished), summary } };
    },
  }),
];

// Scheduled jobs, run by an outside scheduler through /v2/admin/jobs with the cron secret.
// Each job is a named function over the services that answers a small summary of what it did.
import { newSalt } from '../secrets.ts';
import { query } from '../db/queries.ts';
import type { Services } from '../services.ts';
import { buildSpeedBlocks } from './speed-blocks.ts';
import { buildSpeedDims } from './speed-dims.ts';
import { foldSpeedSamples } from './speed-fold.ts';

export type Job = { description: string; run: (services: Services, now: Date) => Promise<Record<string, unknown>> };

export const jobs: Record<string, Job> = {
  retention: {
    description:
      "Drop events, sessions and speed samples older than each project's retentionDays, and the read rollups' kept range values computed over a week ago.",
    async run({ sql, projects, health }) {
      // Project by project: one whose rows cannot be deleted is reported and the others go on.
      const deleted: Record<string, number> = { events: 0, sessions: 0, speed_samples: 0, dedup_keys: 0 };
      const failedProjects: string[] = [];
      for (const { id } of projects.all()) {
        try {
          const [counts] = await query<Record<string, number>>(sql, 'delete_expired_events', [id]);
          for (const [k, n] of Object.entries(counts ?? {})) deleted[k] = (deleted[k] ?? 0) + n;
          health.succeeded(id, 'job');
        } catch (err) {
          failedProjects.push(id);
          health.failed(id, 'job', err);
        }
      }
      const [ranges] = await query<{ deleted: number }>(sql, 'delete_old_range_values');
      return {
        ...deleted,
        rangeValues: ranges?.deleted ?? 0,
        ...(failedProjects.length > 0 ? { failedProjects } : {}),
      };
    },
  },
  logs: {
    description: 'Drop log-stream lines older than seven days.',
    async run({ sql }) {
      const [row] = await query<{ deleted: number }>(sql, 'delete_old_logs');
      return { deleted: row?.deleted ?? 0 };
    },
  },
  sessions: {
    description: 'Drop expired sign-in sessions, and sign-ins started and never finished.',
    async run({ sql }) {
      const deleted = (await query(sql, 'delete_expired_sessions')).length;
      return { deleted, abandonedSignIns: (await query(sql, 'delete_expired_auth_flows')).length };
    },
  },
  speed: {
    description:
      'Fold raw Web Vitals samples older than 30 days into per-day histograms (values within 0.5%; ratings and shares exact), and count every finished day by route, country and element (and routes over blocks of 2–64 days).',
    run: async ({ sql }, now) => ({
      ...(await foldSpeedSamples(sql, now)),
      ...(await buildSpeedDims(sql, now)),
      ...(await buildSpeedBlocks(sql, now)),
    }),
  },
  salt: {
    description: 'Rotate the visitor-hashing salt of projects that rotate daily (the previous salt is kept 48 hours).',
    async run({ sql, projects }, now) {
      const due = (await query<{ id: string; salt_rotated_at: Date | null }>(sql, 'list_daily_salt_projects')).filter(
        (p) => !p.salt_rotated_at || p.salt_rotated_at.toISOString().slice(0, 10) < now.toISOString().slice(0, 10),
      );
      for (const p of due) await query(sql, 'rotate_salt', [p.id, newSalt()]);
      const dropped = await query<{ id: string }>(sql, 'drop_old_previous_salts');
      // Ingest here reads the new salts at once; other processes' directories within their refresh.
      if (due.length > 0 || dropped.length > 0) await projects.refresh();
      return { rotated: due.length, previousDropped: dropped.length };
    },
  },
};

// Scheduled jobs, run by an outside scheduler through /v2/admin/jobs with the cron secret.
// Each job is a named function over the services that answers a small summary of what it did.
import { newSalt } from '../auth/secrets.ts';
import { query } from '../db/queries.ts';
import type { Services } from '../services.ts';
import { foldSpeedSamples } from './speed-fold.ts';

export type Job = { description: string; run: (services: Services, now: Date) => Promise<Record<string, unknown>> };

export const jobs: Record<string, Job> = {
  retention: {
    description:
      "Drop events, sessions and speed samples older than each project's retentionDays, and the read rollups' kept range values computed over a week ago.",
    async run({ sql }) {
      const [deleted] = await query<Record<string, number>>(sql, 'delete_expired_events');
      const [ranges] = await query<{ deleted: number }>(sql, 'delete_old_range_values');
      return { ...deleted, rangeValues: ranges?.deleted ?? 0 };
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
    description: 'Drop expired sign-in sessions.',
    async run({ sql }) {
      return { deleted: (await query(sql, 'delete_expired_sessions')).length };
    },
  },
  speed: {
    description:
      'Fold raw Web Vitals samples older than 30 days into per-day histograms (values within 0.5%; ratings and shares exact).',
    run: ({ sql }, now) => foldSpeedSamples(sql, now),
  },
  salt: {
    description: 'Rotate the visitor-hashing salt of projects that rotate daily (the previous salt is kept 48 hours).',
    async run({ sql }, now) {
      const due = (await query<{ id: string; salt_rotated_at: Date | null }>(sql, 'list_daily_salt_projects')).filter(
        (p) => !p.salt_rotated_at || p.salt_rotated_at.toISOString().slice(0, 10) < now.toISOString().slice(0, 10),
      );
      for (const p of due) await query(sql, 'rotate_salt', [p.id, newSalt()]);
      return { rotated: due.length };
    },
  },
};

// Kept values (rollup_range_values) for the reads a dashboard opens with, counted ahead of the first read:
// distinct visitors over the last 7, 30 and 90 days and the ranges before them (the statistic block's
// comparison), the speed score over 30 days (the across-projects rows), and over 30 days the visitors per
// page, entry and exit page, and per value of the first tab of each breakdown panel
// (src/dashboard/app/views/overview/panels.tsx), and the retention grid's cells over its default ranges
// (weeks over 90 days, months over 12; src/dashboard/app/views/retention/index.tsx: through the end of
// today, whose part is added per read), under the default selection (human, production). A kept value is counted once per range,
// selection and question and reused until a day of its range is rebuilt; counting it costs up to
// seconds at 10M events, which the first read after a seed or a rebuild would otherwise wait for. Run by
// `cli seed` once its days are built, and by the background builder after it builds a project's days.
import type { Sql } from 'postgres';
import { parseMetricList, speedScores } from '../breakdown.ts';
import type { Scope } from '../filters.ts';
import { rollupDimensionGroups } from './dims.ts';
import { rollupEntryGroups } from './entry.ts';
import { rollupPageGroups } from './pages.ts';
import { rollupRetentionCells } from './retention.ts';
import { rollupEventGroups } from './props.ts';
import { rollupSpeedScores } from './speed.ts';
import { rollupStats } from './stats.ts';

const DAY = 86_400_000;
const PANEL_DIMENSIONS = ['channel', 'referrer_domain', 'utm_source', 'country', 'browser'];

/** Counts the kept values of one project's default reads, from the `from`th on; stops after a read once
 *  `deadline` (performance.now()) has passed, so every call counts at least one. Answers where to resume,
 *  or null when every read ran. */
export async function warmKeptValues(
  sql: Sql,
  projectId: string,
  opts: { now?: Date; deadline?: number; from?: number } = {},
): Promise<number | null> {
  const today = Math.floor((opts.now ?? new Date()).getTime() / DAY) * DAY;
  const scope = (days: number, back = 0): Scope => ({
    projectIds: [projectId],
    range: { from: new Date(today - (back + days) * DAY), to: new Date(today - back * DAY) },
    traffic: 'human',
    environment: 'production',
    filters: [],
  });
  const throughToday = (days: number): Scope => ({
    ...scope(days),
    range: { from: new Date(today + DAY - days * DAY), to: new Date(today + DAY) },
  });
  const metrics = parseMetricList('visitors,pageviews', []);
  const month = scope(30);
  const reads: (() => Promise<unknown>)[] = [
    () => rollupStats(sql, month),
    () => rollupStats(sql, scope(30, 30)),
    () => rollupSpeedScores(sql, month, [projectId], speedScores),
    () => rollupStats(sql, scope(7)),
    () => rollupStats(sql, scope(7, 7)),
    () => rollupStats(sql, scope(90)),
    () => rollupStats(sql, scope(90, 90)),
    () => rollupPageGroups(sql, month, metrics),
    () => rollupEntryGroups(sql, month, 'entry_page', metrics),
    () => rollupEntryGroups(sql, month, 'exit_page', metrics),
    () => rollupEventGroups(sql, month, metrics),
    ...PANEL_DIMENSIONS.map((d) => () => rollupDimensionGroups(sql, month, d, metrics)),
    () => rollupRetentionCells(sql, throughToday(90), 'week'),
    () => rollupRetentionCells(sql, throughToday(365), 'month'),
  ];
  for (let i = opts.from ?? 0; i < reads.length; i++) {
    await reads[i]!();
    if (i + 1 < reads.length && opts.deadline !== undefined && performance.now() > opts.deadline) return i + 1;
  }
  return null;
}

// Retention cohorts: a visitor's cohort is the week (from Monday, UTC) or month of their first visit in
// the range, under the read's traffic, environment and filters; each later period counts the cohort's
// visitors active in it. Engagement reports are not visits. One statement; shaping fills empty periods.
import type { Sql } from 'postgres';
import { whereSql, type Scope } from './filters.ts';
import { rollupRetentionCells } from './rollup/retention.ts';

export const retentionIntervals = ['week', 'month'] as const;
export type RetentionInterval = (typeof retentionIntervals)[number];
export type Period = { offset: number; visitors: number; share: number };
export type Cohort = { cohort: string; visitors: number; periods: Period[] };
type CellRow = { cohort: Date; period: Date; visitors: number };

export async function readRetention(sql: Sql, scope: Scope, interval: RetentionInterval): Promise<Cohort[]> {
  if (scope.projectIds.length === 0) return [];
  const cells = (await rollupRetentionCells(sql, scope, interval)) ?? (await rawRetentionCells(sql, scope, interval));
  return shapeCohorts(cells, scope.range.to, interval);
}

/** The cells straight from events (any range, filters, traffic and environment). */
export function rawRetentionCells(sql: Sql, scope: Scope, interval: RetentionInterval) {
  return sql<CellRow[]>`
    with act as (
      select distinct e.project_id, e.visitor_id, date_trunc(${interval}, e.ts at time zone 'UTC') as period
      from events e where ${whereSql(sql, scope)} and e.name <> 'engagement'
    ), firsts as (
      select project_id, visitor_id, min(period) as cohort from act group by 1, 2
    )
    select f.cohort at time zone 'UTC' as cohort, a.period at time zone 'UTC' as period, count(*)::int as visitors
    from firsts f join act a on a.project_id = f.project_id and a.visitor_id = f.visitor_id
    group by 1, 2 order by 1, 2`;
}

/** Every cohort gets offsets 0 … the period holding the range's last instant; missing periods are 0. */
export function shapeCohorts(cells: CellRow[], to: Date, interval: RetentionInterval): Cohort[] {
  const last = periodStart(new Date(to.getTime() - 1), interval);
  const byCohort = new Map<number, Map<number, number>>();
  for (const c of cells) {
    const periods = byCohort.get(c.cohort.getTime()) ?? new Map<number, number>();
    periods.set(periodsBetween(c.cohort, c.period, interval), c.visitors);
    byCohort.set(c.cohort.getTime(), periods);
  }
  return [...byCohort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, periods]) => {
      const cohort = new Date(start);
      const size = periods.get(0) ?? 0;
      const count = periodsBetween(cohort, last, interval) + 1;
      return {
        cohort: cohort.toISOString(),
        visitors: size,
        periods: Array.from({ length: count }, (_, offset) => {
          const visitors = periods.get(offset) ?? 0;
          return { offset, visitors, share: size === 0 ? 0 : visitors / size };
        }),
      };
    });
}

const DAY = 86_400_000;

export function periodStart(d: Date, interval: RetentionInterval): Date {
  if (interval === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const day = Math.floor(d.getTime() / DAY) * DAY;
  return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * DAY);
}

function periodsBetween(a: Date, b: Date, interval: RetentionInterval): number {
  if (interval === 'week') return Math.round((b.getTime() - a.getTime()) / (7 * DAY));
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
}

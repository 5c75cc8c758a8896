// The buckets of folded days and day counts (0023, 0024): their relative accuracy and the thresholds,
// in METRICS order (the `metric` column is the index); the SQL functions hold the same numbers.
import { METRICS, THRESHOLDS, type MetricName } from './score.ts';

/** A folded value is within this fraction of the exact one (the bucket's representative). */
export const RELATIVE_ERROR = 0.005;
/** The widest bucket (upper edge / lower edge) for RELATIVE_ERROR: (1 + α) / (1 − α) = 201 / 199, written
 *  as 0024_speed_buckets.sql writes it, so both compute the same double. */
export const GAMMA = 201 / 199;

export const metricIndex = (m: MetricName): number => METRICS.indexOf(m);
export const GOODS: number[] = METRICS.map((m) => THRESHOLDS[m].good);
export const POORS: number[] = METRICS.map((m) => THRESHOLDS[m].poor);

/** Samples older than this many whole UTC days before today are folded by the `speed` job. */
export const RAW_DAYS = 30;
const DAY = 86_400_000;

/** The start of the raw window: samples from here on are kept one by one. */
export const rawWindowStart = (now: Date): Date => new Date((Math.floor(now.getTime() / DAY) - RAW_DAYS) * DAY);

/** The sizes in days of the aligned blocks of route counts (speed_route_blocks, 0060), smallest first;
 *  blocks of one day give single days their coarse counts too (0071). */
export const BLOCK_SIZES = [1, 2, 4, 8, 16, 32, 64] as const;

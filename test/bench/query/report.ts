// The tables `bench:query` prints: one per size and backend, a row a read, a column a condition, each
// figure over its target marked with `!`; then ingest with and without reads, and the rollups' storage.
import { quantile, type IngestResult } from './ingest-load.ts';
import type { Storage } from './setup.ts';
import type { Cell, Sample } from './timing.ts';

export type Targets = { p50: number; p99: number };
export type ReadRow = {
  name: string;
  afterSeed: Sample | 'reused' | null;
  afterRestart: Sample | null;
  warm: Cell;
  underIngest: Cell;
};

const ms = (x: number) => (Number.isNaN(x) ? '–' : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const mark = (x: number, limit: number) => `${ms(x)}${x >= limit ? ' !' : ''}`;

function first(s: Sample | 'reused' | null, t: Targets): string {
  if (s === null) return '';
  if (s === 'reused') return '(reused db)';
  return s.error ? `${s.error} after ${ms(s.ms)}` : mark(s.ms, t.p50);
}

function spread(c: Cell, t: Targets): string {
  if (!c) return '';
  if (c.n === 0) return c.errors.join('; ');
  const errs = c.errors.length ? ` + ${c.errors.join('; ')}` : '';
  return `${mark(c.p50, t.p50)} / ${mark(c.p99, t.p99)} (${c.n})${errs}`;
}

export function readTable(title: string, rows: ReadRow[], t: Targets): string {
  const head = [
    `### ${title}`,
    '',
    `| read | first after \`cli seed\` | first after restart | warm p50 / p99 (n) | under ingest p50 / p99 (n) |`,
    '| --- | --- | --- | --- | --- |',
  ];
  const body = rows.map(
    (r) =>
      `| ${r.name} | ${first(r.afterSeed, t)} | ${first(r.afterRestart, t)} | ${spread(r.warm, t)} | ${spread(r.underIngest, t)} |`,
  );
  const over = rows.filter(
    (r) =>
      [r.afterSeed, r.afterRestart].some((s) => isOver(s, t)) || [r.warm, r.underIngest].some((c) => cellOver(c, t)),
  );
  const verdict = `${rows.length - over.length} of ${rows.length} reads within target in every condition (p50 < ${t.p50} ms, p99 < ${t.p99} ms, a first read < ${t.p50} ms)`;
  return [...head, ...body, '', verdict].join('\n');
}

const isOver = (s: Sample | 'reused' | null, t: Targets) => !!s && s !== 'reused' && (!!s.error || s.ms >= t.p50);
const cellOver = (c: Cell, t: Targets) => !!c && (c.errors.length > 0 || c.p50 >= t.p50 || c.p99 >= t.p99);

export function ingestLine(label: string, r: IngestResult): string {
  const statuses = Object.entries(r.statuses)
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
  return (
    `| ${label} | ${Math.round(r.events / r.seconds).toLocaleString('en-US')} | ${r.late} | ${ms(quantile(r, 0.5))} | ${ms(quantile(r, 0.99))} | ` +
    `${ms(quantile(r, 1))} | ${statuses}${r.skipped ? `, ${r.skipped} not sent (${200} in flight)` : ''} |`
  );
}

export function ingestTable(
  alone: IngestResult,
  withReads: IngestResult,
  withDashboardReads: IngestResult,
  batch: number,
): string {
  const ratio = (r: IngestResult, q: number) => quantile(r, q) / quantile(alone, q);
  const verdict = (r: IngestResult) =>
    `${ratio(r, 0.99).toFixed(2)}× (target ≤ 1.5×) ${ratio(r, 0.99) <= 1.5 ? 'ok' : 'OVER'}; p50 ${ratio(r, 0.5).toFixed(2)}×`;
  return [
    '',
    `| ingest (batches of ${batch}) | events/s sent | dated yesterday | p50 ms | p99 ms | max ms | statuses |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ingestLine('without reads', alone),
    ingestLine('with the reads above', withReads),
    ingestLine('with the dashboard reads (no comparisons)', withDashboardReads),
    '',
    `ingest p99 with the reads / without: ${verdict(withReads)}`,
    `ingest p99 with the dashboard reads / without: ${verdict(withDashboardReads)}`,
  ].join('\n');
}

const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;

/** Events and rollup tables in bytes, per million events, and the rollups' share of the events. */
export function storageSummary(s: Storage): string {
  const perM = (b: number) => mb((b / s.events) * 1e6);
  return (
    `events ${mb(s.eventBytes)} (${perM(s.eventBytes)} per million events); rollup tables ${mb(s.rollupBytes)} ` +
    `(${perM(s.rollupBytes)} per million events, ${((100 * s.rollupBytes) / s.eventBytes).toFixed(0)}% of the events)`
  );
}

export function storageLines(label: string, s: Storage): string {
  const top = s.tables
    .slice(0, 6)
    .map(([n, b]) => `${n} ${mb(b)}`)
    .join(', ');
  return [
    `\nstorage (${label}, ${s.events.toLocaleString('en-US')} events in the database):`,
    `  ${storageSummary(s)}`,
    `  largest rollup tables: ${top}`,
  ].join('\n');
}

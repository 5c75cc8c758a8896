// The time series of the picked metric (GET …/timeseries with compare=previous) drawn with uPlot: the
// range as a filled line, the previous range dashed beside it, and the range's annotations as marked
// vertical lines (named again in a list under the chart, for keyboards and screen readers). For admins a
// click on the chart starts an annotation at that time (annotations.tsx edits them).
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { canTryAdmin } from '../../components/admin.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { statText as show } from '../../format.ts';
import { dark } from '../../theme.ts';
import { METRICS, rangeQuery, readQuery } from '../../query-state.ts';
import { Annotations, type Annotation, type Editing } from './annotations.tsx';
import type { Ctx } from './index.tsx';

type Bucket = { bucket: string; value: number; previous?: number };
type Series = { buckets: Bucket[]; interval: string; annotations: Annotation[] };

export function Chart({ ctx }: { ctx: Ctx }) {
  const m = METRICS.find((x) => x.key === ctx.state.metric)!;
  const query = readQuery(ctx.state);
  const base = `/v2/projects/${encodeURIComponent(ctx.project)}`;
  const series = useLoad(
    ctx.ready ? `${authKey.value}|${ctx.project}|${m.metric}|${JSON.stringify(query)}` : null,
    async (signal): Promise<Series> => {
      const [ts, notes] = await Promise.all([
        get<{ data: Bucket[]; interval: string }>(
          `${base}/timeseries`,
          { ...query, metric: m.metric, compare: 'previous' },
          signal,
        ),
        get<{ data: Annotation[] }>(`${base}/annotations`, { ...rangeQuery(ctx.state), limit: 100 }, signal).catch(
          () => ({ data: [] as Annotation[] }),
        ),
      ]);
      return { buckets: ts.data, interval: ts.interval, annotations: notes.data };
    },
    ctx.tick,
  );
  const editing = useSignal<Editing>(null);
  const pick = canTryAdmin() ? (date: string) => (editing.value = { id: null, date }) : undefined;
  return (
    <section class="card chart-card" aria-labelledby="chart-title">
      <h2 id="chart-title">
        {m.label} <span class="muted">by {series.data?.interval ?? '…'}, dashed: previous range</span>
      </h2>
      {series.error ? <ErrorNote error={series.error} /> : null}
      {!series.data && !series.error ? <Loading label="Loading the time series…" /> : null}
      {series.data && series.data.buckets.length === 0 ? (
        <Empty>No data in this range yet. Pick a longer period, or send events to this project.</Empty>
      ) : null}
      {series.data && series.data.buckets.length > 0 ? (
        <Plot series={series.data} metric={m.key} onPick={pick} />
      ) : null}
      {series.data ? (
        <Annotations
          project={ctx.project}
          list={series.data.annotations}
          editing={editing.value}
          onEdit={(e) => (editing.value = e)}
          onChanged={series.reload}
        />
      ) : null}
    </section>
  );
}

type PlotProps = { series: Series; metric: (typeof METRICS)[number]['key']; onPick?: (date: string) => void };

function Plot({ series, metric, onPick }: PlotProps) {
  const el = useRef<HTMLDivElement>(null);
  const isDark = dark.value;
  useEffect(() => {
    const node = el.current;
    if (!node) return;
    const css = getComputedStyle(document.documentElement);
    const color = (name: string) => css.getPropertyValue(name).trim();
    const now = Date.now();
    const xs = series.buckets.map((b) => Date.parse(b.bucket) / 1000);
    // Buckets still ahead ("today") are not zeros yet: the line stops at the present.
    const current = series.buckets.map((b) => (Date.parse(b.bucket) > now ? null : b.value));
    const previous = series.buckets.map((b) => b.previous ?? null);
    const marks = series.annotations.map((a) => ({
      at: Date.parse(a.date) / 1000,
      end: a.endDate ? Date.parse(a.endDate) / 1000 : null,
    }));
    const axis = { stroke: color('--muted'), grid: { stroke: color('--grid'), width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width: node.clientWidth || 600,
        height: 240,
        legend: { show: false },
        cursor: { y: false },
        scales: { x: { time: true } },
        // Every range and bucket is in UTC, so the axis is too.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        axes: [axis, { ...axis, size: 56, values: (_u, ticks) => ticks.map((t) => show(metric, t)) }],
        series: [
          {},
          { label: 'Previous', stroke: color('--muted'), dash: [4, 4], width: 1.5, points: { show: false } },
          { label: 'This range', stroke: color('--accent'), fill: color('--accent-fill'), width: 2 },
        ],
        hooks: { draw: [(u) => drawMarks(u, marks, color('--mark'))] },
      },
      [xs, previous, current],
      node,
    );
    // A click on the plot area picks the time under the cursor (uPlot keeps its position).
    const click = () => {
      const left = plot.cursor.left;
      if (!onPick || left === undefined || left < 0) return;
      onPick(new Date(plot.posToVal(left, 'x') * 1000).toISOString());
    };
    plot.over.addEventListener('click', click);
    const resize = new ResizeObserver(() => plot.setSize({ width: node.clientWidth, height: 240 }));
    resize.observe(node);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, metric, isDark, Boolean(onPick)]);
  const total = series.buckets.reduce((n, b) => n + b.value, 0);
  return (
    <div
      ref={el}
      class={onPick ? 'plot pickable' : 'plot'}
      data-total={total}
      title={onPick ? 'Click to add an annotation at that time' : undefined}
      role="img"
      aria-label={`Time series with ${series.buckets.length} buckets, ${show(metric, total)} in total`}
    />
  );
}

/** A dashed line and a tab at each annotation's start; a span (endDate) is also shaded to its end. */
function drawMarks(u: uPlot, marks: { at: number; end: number | null }[], stroke: string) {
  const { ctx, bbox } = u;
  ctx.save();
  ctx.globalAlpha = 0.08;
  ctx.fillStyle = stroke;
  for (const { at, end } of marks) {
    if (end === null) continue;
    const left = Math.max(bbox.left, u.valToPos(at, 'x', true));
    const right = Math.min(bbox.left + bbox.width, u.valToPos(end, 'x', true));
    if (right > left) ctx.fillRect(left, bbox.top, right - left, bbox.height);
  }
  ctx.globalAlpha = 1;
  ctx.strokeStyle = stroke;
  ctx.fillStyle = stroke;
  ctx.setLineDash([2, 3]);
  ctx.lineWidth = devicePixelRatio;
  for (const { at } of marks) {
    const x = u.valToPos(at, 'x', true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.fillRect(x - 3 * devicePixelRatio, bbox.top, 6 * devicePixelRatio, 6 * devicePixelRatio);
  }
  ctx.restore();
}

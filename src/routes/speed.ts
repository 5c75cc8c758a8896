// Speed (Web Vitals) reads per project and over every readable project: the summary, rows per route or
// path, a metric per day or hour, and the elements behind LCP, INP and CLS. Parse → select → read → shape.
import type * as v from 'valibot';
import { decodeOffset, encodeOffset } from '../query/breakdown.ts';
import { exportReply, formatOf, type Column } from '../query/export/index.ts';
import { rangeView } from '../query/params.ts';
import type { SpeedSelection } from '../query/speed/distribution.ts';
import {
  checkInterval,
  requiredMetric,
  speedLimit,
  speedQuery,
  speedSelection,
  type SpeedQuery,
} from '../query/speed/params.ts';
import { curvesOf, metricAnswer, readSpeed, readSpeedGroups, type GroupAnswer } from '../query/speed/read.ts';
import { METRICS } from '../query/speed/score.ts';
import type { Services } from '../services.ts';
import { readableProjectIds } from './pipeline.ts';
import {
  speedElementsResponse,
  speedProjectRoutesResponse,
  speedResponse,
  speedRoutesResponse,
  speedSeriesResponse,
} from './responses-speed.ts';
import { route, type RouteResult } from './route.ts';

type Ask = { services: Services; query: SpeedQuery; projectIds: string[]; accept?: string; across: boolean };
type Answer = (a: Ask) => Promise<RouteResult>;

/** A speed read of one project (`{project}` in the path) or of every project the caller can read. */
function speedRoute(path: string, summary: string, answer: Answer, response: v.GenericSchema) {
  const across = !path.includes('{project}');
  return route({
    method: 'GET',
    path,
    response,
    access: across ? 'public' : 'project',
    tag: 'Speed',
    // Speed samples are written with their events; no session or visitor row is read.
    settles: 'none',
    summary,
    query: speedQuery,
    handler: ({ services, query, caller, project, headers }) =>
      answer({
        services,
        query,
        projectIds: across ? readableProjectIds(services, caller) : [project.id],
        accept: headers.accept,
        across,
      }),
  });
}

const SUMMARY = 'score, rating, samples and per metric value at the percentile, rating, score, samples and shares';
const ROUTES = 'most samples first; group=path for paths; minShare drops small rows; format exports every row';

export const speedRoutes = [
  speedRoute('/v2/projects/{project}/speed', `Web Vitals of the project: ${SUMMARY}.`, summaryAnswer, speedResponse),
  speedRoute(
    '/v2/projects/{project}/speed/routes',
    `Web Vitals per route: ${ROUTES}.`,
    routesAnswer,
    speedRoutesResponse,
  ),
  speedRoute(
    '/v2/projects/{project}/speed/timeseries',
    'One metric at the percentile per UTC day, or per hour over at most 7 days of the raw window.',
    seriesAnswer,
    speedSeriesResponse,
  ),
  speedRoute(
    '/v2/projects/{project}/speed/elements',
    'The elements the SDK reported as LCP element, INP target or largest CLS shift, with samples and value at the percentile.',
    elementsAnswer,
    speedElementsResponse,
  ),
  speedRoute(
    '/v2/speed',
    `Web Vitals over every project the caller can read: ${SUMMARY}.`,
    summaryAnswer,
    speedResponse,
  ),
  speedRoute(
    '/v2/speed/routes',
    `Web Vitals per project and route over every readable project: ${ROUTES}.`,
    routesAnswer,
    speedProjectRoutesResponse,
  ),
];

async function selection(a: Ask): Promise<{ sel: SpeedSelection; envelope: Record<string, unknown> }> {
  const sel = await speedSelection(a.services.sql, a.query, a.projectIds, new Date());
  const envelope = {
    percentile: a.query.percentile,
    device: a.query.device,
    environment: a.query.environment,
    range: rangeView(sel.range),
    traffic: 'human',
    filters: Object.fromEntries(sel.filters.map((f) => [f.dimension, (f.exclude ? '!' : '') + f.value])),
  };
  return { sel, envelope };
}

async function summaryAnswer(a: Ask): Promise<RouteResult> {
  const { sel, envelope } = await selection(a);
  return { data: await readSpeed(a.services.sql, sel, a.query.percentile), ...envelope };
}

async function routesAnswer(a: Ask): Promise<RouteResult> {
  const format = formatOf(a.query, a.accept);
  const limit = speedLimit(a.query, format !== null);
  const offset = decodeOffset(a.query.cursor);
  const { sel, envelope } = await selection(a);
  // Every group's samples decide the rows kept and their order; only the rows answered are scored.
  let kept = 0;
  const groups = await readSpeedGroups(
    a.services.sql,
    sel,
    { key: a.query.group, perProject: a.across },
    a.query.percentile,
    METRICS,
    (ranked) => {
      const total = ranked.reduce((sum, g) => sum + g.samples, 0);
      const rows = ranked.filter((g) => total > 0 && g.samples / total >= a.query.minShare);
      kept = rows.length;
      return format ? rows : rows.slice(offset, offset + limit);
    },
  );
  const rows = groups.map((g) => routeRow(g, a.across));
  const all = { ...envelope, group: a.query.group, minShare: a.query.minShare };
  if (format) {
    const columns: Column[] = [
      ...(a.across ? [{ key: 'project', type: 'text' } as const] : []),
      { key: 'route', type: 'text' },
      { key: 'score', type: 'integer' },
      { key: 'rating', type: 'text' },
      { key: 'samples', type: 'integer' },
      ...METRICS.flatMap((m): Column[] => [
        { key: `${m}.value`, type: 'number' },
        { key: `${m}.rating`, type: 'text' },
        { key: `${m}.score`, type: 'integer' },
        { key: `${m}.samples`, type: 'integer' },
        { key: `${m}.shares.good`, type: 'number' },
        { key: `${m}.shares.needsImprovement`, type: 'number' },
        { key: `${m}.shares.poor`, type: 'number' },
      ]),
    ];
    return exportReply(format, { name: 'speed_routes', columns, envelope: all, rows: iterate(rows) });
  }
  const end = offset + rows.length;
  return { data: rows, ...all, nextCursor: end < kept ? encodeOffset(end) : null };
}

function routeRow(g: GroupAnswer, across: boolean) {
  return {
    ...(across ? { project: g.project } : {}),
    route: g.key,
    score: g.score,
    rating: g.rating,
    samples: g.samples,
    ...g.metrics,
  };
}

async function seriesAnswer(a: Ask): Promise<RouteResult> {
  const metric = requiredMetric(a.query);
  const { sel, envelope } = await selection(a);
  const now = new Date();
  checkInterval(sel, a.query.interval, now);
  const step = a.query.interval === 'hour' ? 3_600_000 : 86_400_000;
  const groups = await readSpeedGroups(a.services.sql, sel, { key: a.query.interval }, a.query.percentile, [metric]);
  const byBucket = new Map(groups.map((g) => [Number(g.key) * 1000, g.metrics[metric]]));
  const data = [];
  for (let t = Math.floor(sel.range.from.getTime() / step) * step; t < sel.range.to.getTime(); t += step) {
    const m = byBucket.get(t) ?? metricAnswer(metric, undefined, curvesOf(sel));
    data.push({ bucket: new Date(t).toISOString(), ...m });
  }
  return { data, metric, interval: a.query.interval, ...envelope };
}

async function elementsAnswer(a: Ask): Promise<RouteResult> {
  const metric = requiredMetric(a.query);
  const format = formatOf(a.query, a.accept);
  const limit = speedLimit(a.query, format !== null);
  const offset = decodeOffset(a.query.cursor);
  const { sel, envelope } = await selection(a);
  // The SDK names an element for LCP (the element), INP (the interaction's target) and CLS (the largest shift).
  let kept = 0;
  const groups =
    metric === 'lcp' || metric === 'inp' || metric === 'cls'
      ? await readSpeedGroups(a.services.sql, sel, { key: 'element' }, a.query.percentile, [metric], (ranked) => {
          kept = ranked.length;
          return format ? ranked : ranked.slice(offset, offset + limit);
        })
      : [];
  const rows = groups.map((g) => {
    const { samples, value, rating, score } = g.metrics[metric];
    return { element: g.key, samples, value, rating, score };
  });
  const all = { ...envelope, metric };
  if (format) {
    const columns: Column[] = [
      { key: 'element', type: 'text' },
      { key: 'samples', type: 'integer' },
      { key: 'value', type: 'number' },
      { key: 'rating', type: 'text' },
      { key: 'score', type: 'integer' },
    ];
    return exportReply(format, { name: `speed_elements_${metric}`, columns, envelope: all, rows: iterate(rows) });
  }
  const end = offset + rows.length;
  return { data: rows, ...all, nextCursor: end < kept ? encodeOffset(end) : null };
}

async function* iterate<T extends Record<string, unknown>>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

// The overview's state as it sits in the address bar: period (or a custom range), traffic, environment,
// filters (as the API's filter[dimension]=value), the chart's metric and the prop panel's key. The same
// names as the API's, so a bookmarked view reads as the requests it makes.
export const PERIODS = ['today', '24h', '7d', '30d', '90d', '12mo', 'all', 'custom'] as const;
export type Period = (typeof PERIODS)[number];
export const TRAFFIC = ['human', 'bots', 'internal', 'all'] as const;
export const ENVIRONMENTS = ['production', 'preview', 'all'] as const;
export const METRICS = [
  { key: 'visitors', metric: 'visitors', label: 'Visitors' },
  { key: 'sessions', metric: 'sessions', label: 'Visits' },
  { key: 'pageviews', metric: 'pageviews', label: 'Pageviews' },
  { key: 'pagesPerSession', metric: 'pages_per_session', label: 'Views per visit' },
  { key: 'bounceRate', metric: 'bounce_rate', label: 'Bounce rate' },
  { key: 'sessionDurationMs', metric: 'session_duration', label: 'Visit duration' },
] as const;
export type StatKey = (typeof METRICS)[number]['key'];

export type ViewState = {
  period: Period;
  /** Custom range, inclusive days as YYYY-MM-DD. */
  from: string;
  to: string;
  traffic: (typeof TRAFFIC)[number];
  environment: (typeof ENVIRONMENTS)[number];
  filters: Record<string, string>;
  metric: StatKey;
  prop: string;
};

const DAY = 86_400_000;
const pick = <T extends string>(list: readonly T[], value: string | null, fallback: T): T =>
  list.includes(value as T) ? (value as T) : fallback;

export function readState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const filters: Record<string, string> = {};
  for (const [k, v] of q) {
    const m = /^filter\[(.+)\]$/.exec(k);
    if (m && v) filters[m[1]!] = v;
  }
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const from = q.get('from') ?? '';
  const to = q.get('to') ?? '';
  let period = pick(PERIODS, q.get('period'), 'today');
  if (period === 'custom' && !(day.test(from) && day.test(to) && from <= to)) period = 'today';
  return {
    period,
    from: period === 'custom' ? from : '',
    to: period === 'custom' ? to : '',
    traffic: pick(TRAFFIC, q.get('traffic'), 'human'),
    environment: pick(ENVIRONMENTS, q.get('environment'), 'production'),
    filters,
    metric: pick(
      METRICS.map((m) => m.key),
      q.get('metric'),
      'visitors',
    ),
    prop: (q.get('prop') ?? '').slice(0, 64),
  };
}

/** The query string for a state; defaults are left out so links stay short. */
export function writeState(s: ViewState): string {
  const q = new URLSearchParams();
  if (s.period !== 'today') q.set('period', s.period);
  if (s.period === 'custom') {
    q.set('from', s.from);
    q.set('to', s.to);
  }
  if (s.traffic !== 'human') q.set('traffic', s.traffic);
  if (s.environment !== 'production') q.set('environment', s.environment);
  for (const [k, v] of Object.entries(s.filters)) q.set(`filter[${k}]`, v);
  if (s.metric !== 'visitors') q.set('metric', s.metric);
  if (s.prop) q.set('prop', s.prop);
  const text = q.toString().replace(/%5B/g, '[').replace(/%5D/g, ']');
  return text ? `?${text}` : '';
}

/** The API's range members: a period, or from/to ("today" and custom ranges). */
export function rangeQuery(s: ViewState, now = Date.now()): Record<string, string> {
  if (s.period === 'today') {
    const start = Math.floor(now / DAY) * DAY;
    return { from: new Date(start).toISOString(), to: new Date(start + DAY).toISOString() };
  }
  if (s.period === 'custom')
    return {
      from: new Date(`${s.from}T00:00:00Z`).toISOString(),
      to: new Date(Date.parse(`${s.to}T00:00:00Z`) + DAY).toISOString(),
    };
  return { period: s.period };
}

/** Every shared read parameter of a state, ready for api.get. */
export function readQuery(s: ViewState): Record<string, string> {
  const q: Record<string, string> = { ...rangeQuery(s), traffic: s.traffic, environment: s.environment };
  for (const [k, v] of Object.entries(s.filters)) q[`filter[${k}]`] = v;
  return q;
}

/** Whether the range reaches the present, so live pushes should refresh its numbers. */
export function reachesNow(s: ViewState, now = Date.now()): boolean {
  if (s.period === 'today') return true;
  if (s.period === 'custom') return Date.parse(`${s.to}T00:00:00Z`) + DAY > now;
  return false;
}

// Loupe's own fuzzer: requests over every operation of the OpenAPI document, with every credential kind,
// path, query and body values drawn from each parameter's schema or from a pool of hostile ones (dates
// PostgreSQL cannot hold, U+0000, bad percent-encoding, huge numbers, wrong types). Seeded, bounded in
// count and time; it reports the statuses seen and every answer of 5xx.

export type Credential = { name: string; headers: Record<string, string> };
export type FuzzTarget = {
  url: string;
  credentials: Credential[];
  /** Real values for path parameters by name (project ids, a dimension, …), mixed with hostile ones. */
  pathValues: Record<string, string[]>;
};
export type FuzzOptions = { requests: number; seconds: number; seed: number; concurrency?: number };
export type FuzzFailure = { method: string; path: string; credential: string; status: number | string; body: string };
export type FuzzReport = {
  sent: number;
  statuses: Record<string, number>;
  failures: FuzzFailure[];
  /** Requests unanswered within the bound (long-polls wait on purpose): printed, so a hang shows. */
  timeouts: { method: string; path: string; credential: string }[];
  ms: number;
};

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
};
type Operation = {
  parameters?: { name: string; in: 'path' | 'query'; schema?: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
};

const HOSTILE_TEXT = [
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x'.repeat(3000),
  '__proto__',
  'constructor',
  '../../etc/passwd',
  "' or 1=1 --",
  '%',
  '😀',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '1969-12-31T23:59:59Z',
  '2026-02-30T00:00:00Z',
  '-1',
  '1e308',
  'NaN',
  'null',
  'trait:email',
  'prop:plan',
];
const HOSTILE_NUMBERS = [0, -1, 1e308, -1e308, 2 ** 53, 1.5, 1e15, 86_400_001];
const RAW_SEGMENTS = ['%E0%A4%A', '%', '%ZZ', '%00', '%2F', '..'];

export async function fuzz(target: FuzzTarget, opts: FuzzOptions): Promise<FuzzReport> {
  const random = mulberry32(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const doc = (await (await fetch(`${target.url}/v2/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  const report: FuzzReport = { sent: 0, statuses: {}, failures: [], timeouts: [], ms: 0 };
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  let next = 0;

  function value(schema: Schema | undefined, depth = 0): unknown {
    if (random() < 0.25 || !schema || depth > 3) return pick([...HOSTILE_TEXT, ...HOSTILE_NUMBERS, true, null, [], {}]);
    if (schema.enum) return pick(schema.enum);
    if (schema.const !== undefined) return schema.const;
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives) return value(pick(alternatives), depth);
    const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
    switch (type) {
      case 'string':
        if (schema.format === 'date-time' || /date|At$/.test(schema.pattern ?? ''))
          return new Date(Date.now() - random() * 4e10).toISOString();
        return random() < 0.5 ? pick(HOSTILE_TEXT) : `v${Math.floor(random() * 1000)}`;
      case 'number':
      case 'integer':
        return random() < 0.5 ? pick(HOSTILE_NUMBERS) : Math.floor(random() * 100);
      case 'boolean':
        return random() < 0.5;
      case 'array':
        return Array.from({ length: Math.floor(random() * 3) }, () => value(schema.items, depth + 1));
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [k, s] of Object.entries(schema.properties ?? {}))
          if (schema.required?.includes(k) || random() < 0.5) out[k] = value(s, depth + 1);
        if (random() < 0.1) out[pick(HOSTILE_TEXT)] = value(undefined, depth + 1);
        return out;
      }
      default:
        return pick(HOSTILE_TEXT);
    }
  }

  function segment(name: string): string {
    if (random() < 0.15) return pick(RAW_SEGMENTS);
    const real = target.pathValues[name];
    const text = real && random() < 0.7 ? pick(real) : String(value({ type: 'string' }));
    return encodeURIComponent(text.toWellFormed()) || 'x';
  }

  function request(): { method: string; path: string; credential: Credential; init: RequestInit } {
    const { path, method, op } = pick(operations);
    let url = path.replace(/\{(\w+)\}/g, (_, name: string) => segment(name));
    const query = new URLSearchParams();
    for (const p of op.parameters ?? []) {
      if (p.in !== 'query' || random() < 0.5) continue;
      const name = p.name.startsWith('filter[')
        ? `filter[${pick(['page', 'country', 'trait:email', 'prop:plan', 'nope', '\u0000'])}]`
        : p.name;
      query.set(name, String(value(p.schema)));
    }
    if (query.size > 0) url += `?${query}`;
    const credential = pick(target.credentials);
    const headers: Record<string, string> = { ...credential.headers };
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(5_000) };
    if (method !== 'GET' && method !== 'DELETE') {
      const schema = op.requestBody?.content['application/json'].schema;
      headers['content-type'] = random() < 0.9 ? 'application/json' : pick(['text/plain', 'application/xml']);
      init.body = random() < 0.05 ? '{"unterminated' : JSON.stringify(value(schema));
    }
    return { method, path: url, credential, init };
  }

  async function worker(): Promise<void> {
    while (next < opts.requests && Date.now() < deadline) {
      next++;
      const r = request();
      let status: number | string;
      let body = '';
      try {
        const res = await fetch(target.url + r.path, r.init);
        status = res.status;
        body = (await res.text()).slice(0, 300);
      } catch (err) {
        // A long-poll that outlives the bound is no failure; a refused connection means the server is gone.
        status = (err as Error).name === 'TimeoutError' ? 'timeout' : `error ${(err as Error).message}`;
      }
      report.sent++;
      report.statuses[String(status)] = (report.statuses[String(status)] ?? 0) + 1;
      if (status === 'timeout') report.timeouts.push({ method: r.method, path: r.path, credential: r.credential.name });
      else if (typeof status === 'string' ? status.startsWith('error') : status >= 500)
        report.failures.push({ method: r.method, path: r.path, credential: r.credential.name, status, body });
    }
  }

  await Promise.all(Array.from({ length: opts.concurrency ?? 6 }, worker));
  report.ms = Date.now() - started;
  return report;
}

/** A small seeded generator, so a failing run can be replayed with its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Timing of reads through the server: one request at a time, each bounded by a timeout, and the
// percentiles of what was timed. A failed request (status, timeout) is kept as a note, not a time.
export type Sample = { ms: number; error?: string };
export type Cell = { n: number; p50: number; p99: number; errors: string[] } | null;

export type Client = { url: string; token: string; timeoutMs: number };

/** One GET, timed to its last byte. */
export async function timeGet(c: Client, path: string): Promise<Sample> {
  const t0 = performance.now();
  try {
    const res = await fetch(c.url + path, {
      headers: { authorization: `Bearer ${c.token}` },
      signal: AbortSignal.timeout(c.timeoutMs),
    });
    const body = await res.text();
    const ms = performance.now() - t0;
    return res.status === 200 ? { ms } : { ms, error: `HTTP ${res.status}: ${body.slice(0, 80)}` };
  } catch (err) {
    const ms = performance.now() - t0;
    const name = (err as Error).name;
    return { ms, error: name === 'TimeoutError' ? `timeout ${c.timeoutMs} ms` : (err as Error).message };
  }
}

/** `runs` requests in a row, stopping early once `budgetMs` has passed (at least one is sent). */
export async function timeRuns(c: Client, path: () => string, runs: number, budgetMs: number): Promise<Sample[]> {
  const out: Sample[] = [];
  const end = performance.now() + budgetMs;
  while (out.length < runs && (out.length === 0 || performance.now() < end)) out.push(await timeGet(c, path()));
  return out;
}

/** p50 and p99 by nearest rank over the samples that answered 200; errors listed (deduplicated). */
export function cell(samples: Sample[]): Cell {
  if (samples.length === 0) return null;
  const ok = samples
    .filter((s) => !s.error)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const rank = (q: number) => ok[Math.max(0, Math.ceil(q * ok.length) - 1)] ?? NaN;
  const errors = [...new Set(samples.flatMap((s) => (s.error ? [s.error] : [])))];
  return { n: ok.length, p50: rank(0.5), p99: rank(0.99), errors };
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

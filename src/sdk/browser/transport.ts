// Batches events to POST /v2/ingest: size 20 or a 1 s timer, fetch with keepalive, sendBeacon when the
// page is going away, backoff on failure, a bounded queue kept in storage. It never throws to callers;
// outcomes become diagnostics.
import type { IngestAnswer, LoupeEvent, SdkReport } from '../event.ts';
import type { Store } from './storage.ts';
import type { Diagnostic } from './types.ts';

export type TransportOptions = {
  /** Full ingest URL including ?key=, so requests stay "simple" (no CORS preflight). */
  endpoint: string;
  /** The endpoint is the site's own proxy path: the site's cookies go with the request, so the proxy can
   *  forward a signed-in member's session cookie (internal traffic). Sent straight to Loupe, none go. */
  viaProxy?: boolean;
  window: Window;
  fetch: typeof fetch;
  store: Store;
  storeKey: string;
  diagnose: (diagnostic: Diagnostic) => void;
  batchSize?: number;
  intervalMs?: number;
  maxQueue?: number;
  /** Events older than this are not replayed from storage (the server refuses public-key events > 24 h old). */
  maxAgeMs?: number;
};

export type Transport = {
  enqueue(event: LoupeEvent): void;
  report(report: SdkReport): void;
  flush(): Promise<void>;
  /** Hand everything queued to sendBeacon (page hidden or unloading). */
  flushBeacon(): void;
  pending(): number;
  close(): void;
};

const BEACON_MAX_BYTES = 60_000; // keepalive and beacon bodies share a 64 KiB budget
const MAX_REPORTS = 50;

export function createTransport(options: TransportOptions): Transport {
  const { window: win, store, storeKey, diagnose } = options;
  const credentials: RequestCredentials = options.viaProxy ? 'same-origin' : 'omit';
  const batchSize = options.batchSize ?? 20;
  const intervalMs = options.intervalMs ?? 1000;
  const maxQueue = options.maxQueue ?? 200;
  const maxAgeMs = options.maxAgeMs ?? 23 * 3600_000;
  let queue: LoupeEvent[] = restore();
  let inflight: LoupeEvent[] = [];
  let reports: SdkReport[] = [];
  let timer: number | undefined;
  let failures = 0;
  let blockedUntil = 0;
  let closed = false;
  let current: Promise<void> | null = null;
  if (queue.length > 0) schedule(intervalMs);

  return {
    enqueue(event) {
      if (closed) return;
      queue.push(event);
      trim();
      persist();
      if (win.document?.visibilityState === 'hidden') return flushBeacon();
      if (queue.length >= batchSize && Date.now() >= blockedUntil) void flush();
      else schedule(intervalMs);
    },
    report(report) {
      reports.push(report);
      if (reports.length > MAX_REPORTS) reports = reports.slice(-MAX_REPORTS);
    },
    flush,
    flushBeacon,
    pending: () => queue.length + inflight.length,
    close() {
      closed = true;
      clear();
    },
  };

  async function flush(): Promise<void> {
    if (current) return current;
    clear();
    current = sendNext().finally(() => {
      current = null;
    });
    return current;
  }

  async function sendNext(): Promise<void> {
    while (queue.length > 0 && !closed) {
      if (win.navigator?.onLine === false) return schedule(backoff());
      const batch = queue.splice(0, batchSize);
      const batchReports = reports.splice(0, 20);
      inflight = batch;
      const outcome = await post(batch, batchReports);
      inflight = [];
      if (outcome.retry) {
        queue = batch.concat(queue);
        reports = batchReports.concat(reports);
        trim();
        persist();
        const delayMs = outcome.delayMs ?? backoff();
        blockedUntil = Date.now() + delayMs;
        return schedule(delayMs);
      }
      failures = 0;
      persist();
    }
  }

  async function post(batch: LoupeEvent[], batchReports: SdkReport[]): Promise<{ retry: boolean; delayMs?: number }> {
    const body = JSON.stringify(batchReports.length > 0 ? { events: batch, reports: batchReports } : { events: batch });
    let response: Response;
    try {
      response = await options.fetch.call(win, options.endpoint, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'text/plain' },
        keepalive: body.length < BEACON_MAX_BYTES,
        credentials,
      });
    } catch (error) {
      failures++;
      diagnose({
        kind: 'failed',
        level: 'warn',
        message: `network error, will retry: ${String(error)}`,
        data: { events: batch.length },
      });
      return { retry: true };
    }
    if (response.status === 429 || response.status >= 500) {
      failures++;
      const retryAfter = Number(response.headers.get('Retry-After'));
      const delayMs = retryAfter > 0 ? retryAfter * 1000 : backoff();
      const kind = response.status === 429 ? 'rate-limited' : 'failed';
      diagnose({
        kind,
        level: 'warn',
        message: `server answered ${response.status}, retrying in ${Math.round(delayMs / 1000)} s`,
        data: { events: batch.length, status: response.status },
      });
      return { retry: true, delayMs };
    }
    if (!response.ok) {
      diagnose({
        kind: 'rejected',
        level: 'error',
        message: `server refused the batch (${response.status}); ${batch.length} events dropped`,
        data: { status: response.status, names: batch.map((e) => e.name) },
      });
      return { retry: false };
    }
    answered(batch, await readAnswer(response));
    return { retry: false };
  }

  function answered(batch: LoupeEvent[], answer: IngestAnswer | null): void {
    const rejected = answer?.rejected ?? [];
    for (const r of rejected) {
      const event = batch[r.index];
      diagnose({
        kind: 'rejected',
        level: 'error',
        message: `"${event?.name}" rejected: ${r.message}`,
        data: { ...r, name: event?.name },
      });
    }
    const names = batch.filter((_, i) => !rejected.some((r) => r.index === i)).map((e) => e.name);
    diagnose({
      kind: 'sent',
      level: 'info',
      message: `sent ${names.length} event${names.length === 1 ? '' : 's'}: ${names.join(', ')}`,
      data: { accepted: answer?.accepted, duplicates: answer?.duplicates },
    });
  }

  function flushBeacon(): void {
    clear();
    // Offline: a beacon would be lost; the stored queue is replayed on the next page load instead.
    if (win.navigator?.onLine === false) return persist();
    const beacon = win.navigator?.sendBeacon?.bind(win.navigator);
    // Reports ride along (the widget's last diagnostics would otherwise die with the page).
    while (queue.length > 0 || reports.length > 0) {
      const batchReports = reports.splice(0, 20);
      const reportBytes = batchReports.length > 0 ? JSON.stringify(batchReports).length + 12 : 0;
      const batch = takeChunk(BEACON_MAX_BYTES - reportBytes);
      const body = JSON.stringify(
        batchReports.length > 0 ? { events: batch, reports: batchReports } : { events: batch },
      );
      if (beacon && beacon(options.endpoint, body)) continue;
      // Beacon refused (quota) or missing: a keepalive fetch may still outlive the page.
      options.fetch
        .call(win, options.endpoint, {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'text/plain' },
          keepalive: true,
          credentials,
        })
        .catch(() => {});
    }
    persist();
  }

  function takeChunk(budget: number): LoupeEvent[] {
    const chunk: LoupeEvent[] = [];
    let bytes = 20;
    while (queue.length > 0 && chunk.length < batchSize) {
      const size = JSON.stringify(queue[0]).length + 1;
      if (chunk.length > 0 && bytes + size > budget) break;
      chunk.push(queue.shift() as LoupeEvent);
      bytes += size;
    }
    return chunk;
  }

  function trim(): void {
    const over = queue.length - maxQueue;
    if (over <= 0) return;
    const dropped = queue.splice(0, over);
    diagnose({
      kind: 'dropped',
      level: 'warn',
      message: `offline queue full: dropped ${over} oldest event${over === 1 ? '' : 's'}`,
      data: { names: dropped.map((e) => e.name) },
    });
  }

  function schedule(delayMs: number): void {
    if (closed || timer !== undefined) return;
    timer = win.setTimeout(() => {
      timer = undefined;
      void flush();
    }, delayMs);
  }

  function clear(): void {
    if (timer !== undefined) win.clearTimeout(timer);
    timer = undefined;
  }

  function backoff(): number {
    const base = Math.min(60_000, 1000 * 2 ** Math.min(failures, 6));
    return base / 2 + Math.random() * (base / 2);
  }

  function persist(): void {
    if (!store.persistent) return;
    const all = inflight.concat(queue);
    if (all.length === 0) store.remove(storeKey);
    else store.set(storeKey, JSON.stringify(all));
  }

  function restore(): LoupeEvent[] {
    const raw = store.get(storeKey);
    if (!raw) return [];
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!Array.isArray(parsed)) return [];
      const oldest = Date.now() - maxAgeMs;
      return (parsed as LoupeEvent[])
        .filter((e) => e && typeof e.id === 'string' && Date.parse(e.ts) >= oldest)
        .slice(-maxQueue);
    } catch {
      return [];
    }
  }
}

async function readAnswer(response: Response): Promise<IngestAnswer | null> {
  try {
    return (await response.json()) as IngestAnswer;
  } catch {
    return null;
  }
}

// The server SDK (Node ≥ 20): events sent with the project's secret key, carrying the visitor's user
// agent and IP as `context` and forwarding only the Loupe session cookie. Batches per cookie (a
// Cookie header belongs to one request), flushes on size, timer and shutdown, retries with the same ids.
import type { LoupeEvent, PageInfo, Props } from '../event.ts';
import { MAX_BATCH, MAX_BODY_BYTES } from '../event.ts';
import { checkEvent } from '../validate.ts';
import type { Checked } from '../validate.ts';
import { requestInfo } from './request-info.ts';
import type { RequestLike } from './request-info.ts';
import { sendBatch } from './sender.ts';
import { timeOrderedId } from '../ids.ts';
import type { SendOutcome } from './sender.ts';

export type { RequestLike } from './request-info.ts';
export { requestInfo, sessionCookie, clientIp } from './request-info.ts';
export type { SendOutcome } from './sender.ts';

export type LoupeOptions = {
  secretKey: string;
  host: string;
  cookiePrefix?: string;
  flushAt?: number;
  flushIntervalMs?: number;
  maxRetries?: number;
  /** First retry delay; doubles each attempt. */
  retryBaseMs?: number;
  fetch?: typeof fetch;
  release?: string;
  environment?: 'production' | 'preview';
  /** A batch the server refused or that failed after every retry. Default: console.warn. */
  onError?: (failure: Extract<SendOutcome, { ok: false }> & { events: LoupeEvent[] }) => void;
};

export type TrackOptions = {
  request?: RequestLike;
  visitor?: string;
  session?: string;
  user?: { id: string; traits?: Props };
  groups?: Record<string, string>;
  experiments?: Record<string, string>;
  page?: PageInfo;
  release?: string;
  environment?: 'production' | 'preview';
  ts?: Date | string;
  id?: string;
  context?: { ip?: string; userAgent?: string };
};

export type PageviewOptions = Omit<TrackOptions, 'page'> & {
  url: string;
  title?: string;
  referrer?: string;
  route?: string | null;
};

export type Tracked =
  { ok: true; id: string } | Extract<Checked, { ok: false }> | { ok: false; field: 'client'; message: string };

export type Loupe = {
  track(name: string, props?: Props, options?: TrackOptions): Tracked;
  pageview(options: PageviewOptions): Tracked;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
};

export function createLoupe(options: LoupeOptions): Loupe {
  const cookiePrefix = options.cookiePrefix ?? 'loupe';
  const flushAt = Math.min(Math.max(1, options.flushAt ?? 50), MAX_BATCH);
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const send = {
    url: `${options.host.replace(/\/+$/, '')}/v2/ingest`,
    secretKey: options.secretKey,
    fetch: options.fetch ?? globalThis.fetch,
    maxRetries: options.maxRetries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 500,
  };
  const onError =
    options.onError ??
    ((f) => console.warn(`[loupe] ${f.events.length} events not sent: ${f.reason} ${f.status ?? ''} ${f.message}`));
  const queues = new Map<string, LoupeEvent[]>(); // keyed by the forwarded session cookie ('' for none)
  const inflight = new Set<Promise<void>>();
  let queued = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  return { track, pageview, flush, shutdown };

  function track(name: string, props?: Props, opts: TrackOptions = {}): Tracked {
    const checked = checkEvent(name, props);
    if (!checked.ok) return checked;
    return enqueue(name, props, opts, opts.page);
  }

  function pageview(opts: PageviewOptions): Tracked {
    const { url, title, referrer, route, ...rest } = opts;
    let path: string;
    try {
      path = new URL(url, 'http://localhost').pathname;
    } catch {
      return { ok: false, field: 'url', message: 'url must be a URL or a path' };
    }
    const page: PageInfo = { url, path, route: route ?? null };
    if (title !== undefined) page.title = title;
    const ref = referrer ?? (rest.request ? requestInfo(rest.request, cookiePrefix).referrer : undefined);
    if (ref) page.referrer = ref;
    return enqueue('pageview', undefined, rest, page);
  }

  function enqueue(name: string, props: Props | undefined, opts: TrackOptions, page: PageInfo | undefined): Tracked {
    if (closed) return { ok: false, field: 'client', message: 'shutdown() was called' };
    const info = opts.request ? requestInfo(opts.request, cookiePrefix) : {};
    const event: LoupeEvent = { id: opts.id ?? timeOrderedId(), name, ts: toIso(opts.ts) };
    if (opts.visitor) event.visitor = opts.visitor;
    if (opts.session) event.session = opts.session;
    if (page) event.page = page;
    if (props) event.props = { ...props };
    if (opts.user) event.user = opts.user;
    if (opts.groups) event.groups = opts.groups;
    if (opts.experiments) event.experiments = opts.experiments;
    const release = opts.release ?? options.release;
    if (release) event.release = release;
    const environment = opts.environment ?? options.environment;
    if (environment) event.environment = environment;
    const context = {
      ...(info.ip ? { ip: info.ip } : {}),
      ...(info.userAgent ? { userAgent: info.userAgent } : {}),
      ...opts.context,
    };
    if (Object.keys(context).length > 0) event.context = context;
    const key = info.cookie ?? '';
    const queue = queues.get(key) ?? [];
    queue.push(event);
    queues.set(key, queue);
    queued++;
    if (queued >= flushAt) void flush();
    else if (!timer) timer = setTimeout(() => void flush(), flushIntervalMs).unref();
    return { ok: true, id: event.id };
  }

  /** Sends everything queued and waits for it and for any batch already in flight. */
  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const [cookie, events] of queues) {
      for (const batch of chunks(events)) {
        const sending = deliver(batch, cookie || undefined);
        inflight.add(sending);
        void sending.finally(() => inflight.delete(sending));
      }
    }
    queues.clear();
    queued = 0;
    await Promise.all([...inflight]);
  }

  async function deliver(batch: LoupeEvent[], cookie: string | undefined): Promise<void> {
    const outcome = await sendBatch(send, batch, cookie);
    if (!outcome.ok) return onError({ ...outcome, events: batch });
    for (const rejected of outcome.answer?.rejected ?? []) {
      const event = batch[rejected.index];
      onError({
        ok: false,
        reason: 'refused',
        status: 202,
        message: `${event?.name ?? '?'} rejected: ${rejected.message} (${rejected.field ?? ''})`,
        attempts: outcome.attempts,
        events: event ? [event] : [],
      });
    }
  }

  async function shutdown(): Promise<void> {
    closed = true;
    await flush();
  }
}

/** Batches of at most 500 events and a body under 1 MiB. */
function chunks(events: LoupeEvent[]): LoupeEvent[][] {
  const out: LoupeEvent[][] = [];
  let current: LoupeEvent[] = [];
  let bytes = 16;
  for (const event of events) {
    const size = Buffer.byteLength(JSON.stringify(event)) + 1;
    if (current.length > 0 && (current.length >= MAX_BATCH || bytes + size > MAX_BODY_BYTES)) {
      out.push(current);
      current = [];
      bytes = 16;
    }
    current.push(event);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function toIso(ts: Date | string | undefined): string {
  if (ts === undefined) return new Date().toISOString();
  return typeof ts === 'string' ? ts : ts.toISOString();
}

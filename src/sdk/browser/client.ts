// The browser client: builds events (identity, page, device, signals), runs automatic pageviews and
// engagement reports, and hands events to the transport. The window is injected so the whole client
// runs against a fake one in tests; it never reads globals itself.
import type { LoupeEvent, PageInfo, SdkReport } from '../event.ts';
import { checkEvent, checkName, checkProps } from '../validate.ts';
import { createDisposer } from './dispose.ts';
import { createEngagement } from './engagement.ts';
import { botSignals, deviceInfo, dntEnabled, pageInfo, scrollDepth } from './environment.ts';
import { createIdentity } from './identity.ts';
import { timeOrderedId } from '../ids.ts';
import { watchNavigation } from './navigation.ts';
import { createStore } from './storage.ts';
import { createTransport } from './transport.ts';
import type { Client, Diagnostic, EventFields, InitOptions, Plugin } from './types.ts';

export type ClientInternals = {
  /** The fetch used for ingest; captured before plugins wrap window.fetch. */
  fetch?: typeof fetch;
  batchSize?: number;
  intervalMs?: number;
  maxQueue?: number;
};

export function createClient(options: InitOptions, win: Window, internals: ClientInternals = {}): Client {
  const disposer = createDisposer();
  const store = createStore(win, options.persistence ?? 'localStorage');
  const identity = createIdentity(store);
  const engagement = createEngagement();
  const eventListeners = new Set<(event: LoupeEvent) => void>();
  const diagnosticListeners = new Set<(diagnostic: Diagnostic) => void>();
  const dnt = options.respectDnt === true && dntEnabled(win);
  const plugins: Plugin[] = [];
  let pointerSeen = false;
  let page: PageInfo | null = null;
  let closed = false;

  const transport = createTransport({
    endpoint: ingestUrl(options, win),
    viaProxy: options.proxyPath !== undefined,
    window: win,
    fetch: internals.fetch ?? win.fetch,
    store,
    storeKey: `loupe.queue.${options.key}`,
    diagnose,
    batchSize: internals.batchSize,
    intervalMs: internals.intervalMs,
    maxQueue: internals.maxQueue,
  });

  const client: Client = {
    options,
    window: win,
    get closed() {
      return closed;
    },
    track(name, props) {
      const checked = checkEvent(name, props);
      if (!checked.ok)
        return diagnose({
          kind: 'validation',
          level: 'error',
          message: `track("${String(name)}") not sent: ${checked.message}`,
          data: { field: checked.field },
        });
      client.send(name, props ? { props: { ...props } } : {});
    },
    send,
    pageview() {
      const next = pageInfo(win, options.route, page ? page.url : (win.document?.referrer ?? ''));
      if (page && next.path === page.path) return;
      if (page) sendEngagement();
      page = next;
      engagement.reset(Date.now(), win.document?.visibilityState !== 'hidden', scrollDepth(win));
      send('pageview', { page });
    },
    identify(userId, traits) {
      if (userId !== null && (typeof userId !== 'string' || userId.length === 0))
        return invalid('identify', 'userId must be a non-empty string or null');
      const checked = checkProps(traits, 'traits');
      if (!checked.ok) return invalid('identify', checked.message);
      identity.identify(userId, traits);
    },
    group(type, id) {
      if (!isKey(type)) return invalid('group', 'type must be a non-empty string');
      identity.group(type, id === null ? null : String(id));
    },
    setExperiment(name, variant) {
      if (!isKey(name)) return invalid('setExperiment', 'name must be a non-empty string');
      identity.setExperiment(name, variant === null ? null : String(variant));
    },
    currentPage: () => page ?? pageInfo(win, options.route, ''),
    onEvent: (fn) => subscribe(eventListeners, fn),
    onDiagnostic: (fn) => subscribe(diagnosticListeners, fn),
    diagnose,
    report: (report: SdkReport) => transport.report(report),
    listen: (target, type, fn, listenOptions) => disposer.listen(target, type, fn, listenOptions),
    plugin: <T extends Plugin>(name: string) => plugins.find((p) => p.name === name) as T | undefined,
    flush: () => transport.flush(),
    shutdown() {
      if (closed) return;
      sendEngagement();
      transport.flushBeacon();
      closed = true;
      disposer.run();
      transport.close();
      eventListeners.clear();
      diagnosticListeners.clear();
    },
  };

  installListeners();
  for (const plugin of options.plugins ?? []) {
    plugins.push(plugin);
    try {
      const undo = plugin.setup(client);
      if (typeof undo === 'function') disposer.add(undo);
    } catch (error) {
      diagnose({ kind: 'failed', level: 'error', message: `plugin ${plugin.name} failed to start: ${String(error)}` });
    }
  }
  if (options.autoPageviews !== false) {
    watchNavigation(win, disposer, () => client.pageview());
    client.pageview();
  }
  return client;

  function send(name: string, fields: EventFields = {}): LoupeEvent | null {
    if (closed) return null;
    if (dnt) {
      diagnose({ kind: 'dnt', level: 'info', message: `"${name}" not sent: Do Not Track is on` });
      return null;
    }
    const named = checkName(name, true);
    if (!named.ok) {
      diagnose({ kind: 'validation', level: 'error', message: `"${String(name)}" not sent: ${named.message}` });
      return null;
    }
    const now = Date.now();
    const event: LoupeEvent = {
      id: timeOrderedId(now),
      name,
      ts: new Date(now).toISOString(),
      visitor: identity.visitor,
      session: identity.session(now, name !== 'engagement'),
      page: page ?? pageInfo(win, options.route, win.document?.referrer ?? ''),
      ...identity.context(),
      device: deviceInfo(win),
      signals: botSignals(win, pointerSeen),
      ...fields,
    };
    if (options.release) event.release = options.release;
    if (options.environment) event.environment = options.environment;
    if (event.session === undefined) delete event.session;
    transport.enqueue(event);
    for (const fn of eventListeners) guard(() => fn(event));
    return event;
  }

  function sendEngagement(): void {
    if (!page) return;
    const totals = engagement.take(Date.now());
    if (totals) send('engagement', { page, props: totals });
  }

  function installListeners(): void {
    const doc = win.document;
    const pointer = () => {
      pointerSeen = true;
    };
    for (const type of ['pointerdown', 'pointermove', 'touchstart', 'mousemove', 'wheel']) {
      disposer.listen(win, type, pointer, { passive: true, capture: true });
    }
    disposer.listen(win, 'scroll', () => engagement.scrolled(scrollDepth(win)), { passive: true });
    if (doc) {
      disposer.listen(doc, 'visibilitychange', () => {
        if (doc.visibilityState === 'hidden') hide();
        else engagement.visible(Date.now());
      });
    }
    disposer.listen(win, 'pagehide', hide);
    disposer.listen(win, 'online', () => void transport.flush());
  }

  function hide(): void {
    engagement.scrolled(scrollDepth(win));
    engagement.hidden(Date.now());
    sendEngagement();
    transport.flushBeacon();
  }

  function diagnose(diagnostic: Diagnostic): void {
    for (const fn of diagnosticListeners) guard(() => fn(diagnostic));
  }

  function invalid(method: string, message: string): void {
    diagnose({ kind: 'validation', level: 'error', message: `${method}() ignored: ${message}` });
  }
}

/** `?key=` rather than a header keeps the request "simple", so neither fetch nor sendBeacon needs a preflight. */
export function ingestUrl(options: Pick<InitOptions, 'key' | 'host' | 'proxyPath'>, win?: Window): string {
  const base =
    options.proxyPath !== undefined
      ? options.proxyPath.replace(/\/+$/, '')
      : (options.host ?? win?.location?.origin ?? '').replace(/\/+$/, '');
  return `${base}/v2/ingest?key=${encodeURIComponent(options.key)}`;
}

function isKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function subscribe<T>(set: Set<T>, fn: T): () => void {
  set.add(fn);
  return () => void set.delete(fn);
}

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // a listener's bug must not stop the event or the other listeners
  }
}

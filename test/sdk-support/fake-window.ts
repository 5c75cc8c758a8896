// A small fake browser window on Node's EventTarget: enough location, history, document, navigator,
// storage and beacon for the browser client to run in Node. Counts live listeners so tests can check
// that shutdown() removed every one.
export class CountingTarget extends EventTarget {
  listeners = 0;
  override addEventListener(
    type: string,
    fn: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    this.listeners++;
    super.addEventListener(type, fn, options);
  }

  override removeEventListener(
    type: string,
    fn: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    this.listeners--;
    super.removeEventListener(type, fn, options);
  }
}

export type Beacon = { url: string; body: string };

export type FakeBrowser = {
  win: Window;
  doc: CountingTarget & { visibilityState: string; title: string; referrer: string };
  winTarget: CountingTarget;
  beacons: Beacon[];
  storage: Map<string, string>;
  navigate(path: string): void;
  setVisibility(state: 'visible' | 'hidden'): void;
};

export type FakeOptions = {
  url?: string;
  fetch?: typeof fetch;
  userAgent?: string;
  doNotTrack?: string;
  storage?: Map<string, string>;
  beaconResult?: boolean;
};

export function fakeBrowser(options: FakeOptions = {}): FakeBrowser {
  const winTarget = new CountingTarget();
  const doc = Object.assign(new CountingTarget(), {
    visibilityState: 'visible',
    title: 'Test page',
    referrer: 'https://referrer.example/',
    documentElement: { scrollHeight: 2000 },
    body: { scrollHeight: 2000 },
  });
  let url = new URL(options.url ?? 'https://site.example/start');
  const location = {
    get href() {
      return url.href;
    },
    get pathname() {
      return url.pathname;
    },
    get origin() {
      return url.origin;
    },
    get search() {
      return url.search;
    },
  };
  const history = {
    state: null as unknown,
    pushState(_state: unknown, _title: string, next?: string | URL | null) {
      if (next != null) url = new URL(String(next), url);
    },
    replaceState(_state: unknown, _title: string, next?: string | URL | null) {
      if (next != null) url = new URL(String(next), url);
    },
  };
  const beacons: Beacon[] = [];
  const storage = options.storage ?? new Map<string, string>();
  const localStorage = {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => void storage.set(key, String(value)),
    removeItem: (key: string) => void storage.delete(key),
  };
  const navigator = {
    userAgent: options.userAgent ?? 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36',
    webdriver: false,
    language: 'en-GB',
    languages: ['en-GB', 'en'],
    plugins: { length: 3 },
    onLine: true,
    doNotTrack: options.doNotTrack ?? null,
    sendBeacon(target: string, body: string) {
      beacons.push({ url: target, body });
      return options.beaconResult ?? true;
    },
  };
  const win = Object.assign(winTarget, {
    document: doc,
    location,
    history,
    navigator,
    localStorage,
    screen: { width: 1920, height: 1080 },
    innerWidth: 1280,
    innerHeight: 720,
    scrollY: 0,
    fetch: options.fetch ?? (async () => new Response('{"accepted":0,"duplicates":0,"rejected":[]}', { status: 202 })),
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
  });
  return {
    win: win as unknown as Window,
    doc,
    winTarget,
    beacons,
    storage,
    navigate(path) {
      (win as unknown as Window).history.pushState(null, '', path);
    },
    setVisibility(state) {
      doc.visibilityState = state;
      doc.dispatchEvent(new Event('visibilitychange'));
    },
  };
}

/** A fetch that records each call and answers from the queue of statuses (default 202). */
export function recordingFetch(statuses: Array<number | 'reject'> = []) {
  const calls: Array<{ url: string; init: RequestInit; body: { events: any[]; reports?: unknown[] } }> = [];
  const fetchFn = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const body = JSON.parse(String(init.body ?? '{}'));
    calls.push({ url: String(input), init, body });
    const status = statuses.shift() ?? 202;
    if (status === 'reject') throw new TypeError('network down');
    const answer = { accepted: body.events?.length ?? 0, duplicates: 0, rejected: [] };
    return new Response(JSON.stringify(answer), { status, headers: status === 429 ? { 'Retry-After': '0' } : {} });
  };
  return { fetch: fetchFn as typeof fetch, calls };
}

export function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error('timed out waiting'));
      setTimeout(tick, 5);
    };
    tick();
  });
}

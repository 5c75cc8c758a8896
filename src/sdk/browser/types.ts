// Public types of the browser SDK: init options, the client handed to plugins, diagnostics.
import type { LoupeEvent, PageInfo, Props, SdkReport } from '../event.ts';

export type { LoupeEvent, PageInfo, Props, SdkReport };

export type InitOptions = {
  /** The project's public key, pk_… */
  key: string;
  /** Loupe's origin, e.g. https://loupe.example.com. Ignored when proxyPath is set. */
  host?: string;
  /** A path on the site's own origin that forwards to Loupe (see createProxyHandler). */
  proxyPath?: string;
  release?: string;
  environment?: 'production' | 'preview';
  persistence?: 'localStorage' | 'memory';
  /** Send nothing when the browser asks not to be tracked (DNT or Global Privacy Control). */
  respectDnt?: boolean;
  autoPageviews?: boolean;
  /** The route template of the current page (e.g. /posts/:id), for speed and page reports. */
  route?: () => string | null;
  plugins?: Plugin[];
};

/** Why something was or was not sent; the widget lists these and forwards them as reports. */
export type DiagnosticKind = 'sent' | 'dnt' | 'validation' | 'rejected' | 'rate-limited' | 'dropped' | 'failed';

export type Diagnostic = {
  kind: DiagnosticKind;
  level: 'info' | 'warn' | 'error';
  message: string;
  data?: Record<string, unknown>;
};

/** Fields a plugin may set on an event it sends; the client fills in the rest. */
export type EventFields = Partial<Omit<LoupeEvent, 'id' | 'name' | 'ts'>>;

export type Plugin = {
  name: string;
  /** Called once by init(); the returned function is called by shutdown(). */
  setup(client: Client): void | (() => void);
};

export type Client = {
  readonly options: Readonly<InitOptions>;
  readonly window: Window;
  /** A custom event; reserved names and invalid props are refused with a 'validation' diagnostic. */
  track(name: string, props?: Props): void;
  /** Any event, reserved names included; for the SDK's own plugins. */
  send(name: string, fields?: EventFields): LoupeEvent | null;
  pageview(): void;
  identify(userId: string | null, traits?: Props): void;
  group(type: string, id: string | null): void;
  setExperiment(name: string, variant: string | null): void;
  currentPage(): PageInfo;
  /** Called after an event is queued for sending. */
  onEvent(fn: (event: LoupeEvent) => void): () => void;
  onDiagnostic(fn: (diagnostic: Diagnostic) => void): () => void;
  diagnose(diagnostic: Diagnostic): void;
  /** Queue a report for the next batch (the widget's diagnostics). */
  report(report: SdkReport): void;
  /** A listener removed by shutdown(). */
  listen(target: EventTarget, type: string, fn: (event: Event) => void, options?: AddEventListenerOptions): void;
  plugin<T extends Plugin>(name: string): T | undefined;
  flush(): Promise<void>;
  shutdown(): void;
  readonly closed: boolean;
};

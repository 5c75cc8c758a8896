// The ingest wire format shared by the browser and server SDKs (POST /v2/ingest).
// Types only: the server validates with its own valibot schema; nothing here runs.

export type PropValue = string | number | boolean | null;
export type Props = Record<string, PropValue>;

export type PageInfo = {
  url: string;
  path: string;
  route?: string | null;
  title?: string;
  referrer?: string;
};

export type Vitals = {
  lcp?: number;
  inp?: number;
  cls?: number;
  fcp?: number;
  ttfb?: number;
  element?: string;
};

export type LoupeEvent = {
  id: string;
  name: string;
  ts: string;
  visitor?: string;
  session?: string;
  page?: PageInfo;
  props?: Props;
  user?: { id: string; traits?: Props };
  groups?: Record<string, string>;
  experiments?: Record<string, string>;
  release?: string;
  environment?: 'production' | 'preview';
  device?: { screen?: string; viewport?: string; language?: string; connection?: string };
  signals?: { webdriver: boolean; headless: boolean; pointerEvents: boolean };
  vitals?: Vitals;
  context?: { ip?: string; userAgent?: string };
};

export type SdkReport = {
  level: 'info' | 'warn' | 'error';
  message: string;
  data?: Record<string, unknown>;
};

export type IngestBody = { events: LoupeEvent[]; reports?: SdkReport[] };

export type IngestRejection = { index: number; code: string; reason: string; field?: string; message: string };

export type IngestAnswer = { accepted: number; duplicates: number; rejected: IngestRejection[] };

/** Names only the SDKs themselves may send. */
export const RESERVED_NAMES: readonly string[] = ['pageview', 'error', 'speed', 'engagement'];

/** The server's batch limit. */
export const MAX_BATCH = 500;

/** The server's body limit, minus headroom. */
export const MAX_BODY_BYTES = 1024 * 1024 - 1024;

// CORS: credentials are allowed only for DASHBOARD_ORIGIN; any other origin may call without them
// (SDK ingest, token-authenticated scripts). Preflights are answered from the route table.
export const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Project-Key, Last-Event-ID, X-Request-Id';

type Header = readonly [string, string];

// Shared by every request, so they are frozen: callers only read them.
const NONE: readonly Header[] = Object.freeze([]);
const ANY_ORIGIN: readonly Header[] = Object.freeze([
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', 'Retry-After, X-Request-Id'],
] as const);

export function corsHeaders(origin: string | undefined, dashboardOrigin: string | undefined): readonly Header[] {
  if (!origin) return NONE;
  if (dashboardOrigin && origin === dashboardOrigin) {
    return [
      ['Access-Control-Allow-Origin', origin],
      ['Access-Control-Allow-Credentials', 'true'],
      ['Access-Control-Expose-Headers', 'Retry-After, X-Request-Id'],
      ['Vary', 'Origin'],
    ];
  }
  return ANY_ORIGIN;
}

export function preflightHeaders(allowed: string[]): Header[] {
  return [
    ['Access-Control-Allow-Methods', [...new Set([...allowed, 'OPTIONS'])].join(', ')],
    ['Access-Control-Allow-Headers', ALLOWED_HEADERS],
    ['Access-Control-Max-Age', '86400'],
  ];
}

// CORS: credentials are allowed only for DASHBOARD_ORIGIN; any other origin may call without them
// (SDK ingest, token-authenticated scripts). Preflights are answered from the route table.
export const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Project-Key, Last-Event-ID, X-Request-Id';

export function corsHeaders(origin: string | undefined, dashboardOrigin: string | undefined): [string, string][] {
  if (!origin) return [];
  if (dashboardOrigin && origin === dashboardOrigin) {
    return [
      ['Access-Control-Allow-Origin', origin],
      ['Access-Control-Allow-Credentials', 'true'],
      ['Access-Control-Expose-Headers', 'Retry-After, X-Request-Id'],
      ['Vary', 'Origin'],
    ];
  }
  return [
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', 'Retry-After, X-Request-Id'],
  ];
}

export function preflightHeaders(allowed: string[]): [string, string][] {
  return [
    ['Access-Control-Allow-Methods', [...new Set([...allowed, 'OPTIONS'])].join(', ')],
    ['Access-Control-Allow-Headers', ALLOWED_HEADERS],
    ['Access-Control-Max-Age', '86400'],
  ];
}

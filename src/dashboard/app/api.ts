// The dashboard's one way to the API: same-origin fetches to /v2 with the tab's token (if any) as a
// bearer, and the cookie session the browser sends by itself. Error bodies become ApiError with the
// API's own message, which views show as they are.
import { signal } from '@preact/signals';

const TOKEN_KEY = 'loupe.token';

/** The pasted API token, kept for this tab only (sessionStorage). */
export const token = signal<string | null>(readToken());

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(value: string | null): void {
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage refused (private mode): the token lives in memory for this page only.
  }
  token.value = value;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field: string; message: string; position?: number }[] = [],
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | undefined | null>;

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { ...extra };
  if (token.value) h.authorization = `Bearer ${token.value}`;
  return h;
}

async function request(method: string, path: string, query?: Query, body?: unknown, signal?: AbortSignal) {
  let res: Response;
  try {
    res = await fetch(apiUrl(path, query), {
      method,
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'Loupe could not be reached. Check that the server is running.');
  }
  if (res.ok) return res;
  let error: { code?: string; message?: string; details?: ApiError['details'] } = {};
  try {
    error = ((await res.json()) as { error?: typeof error }).error ?? {};
  } catch {
    // Not the API's error body (a proxy's page): the status says enough.
  }
  throw new ApiError(res.status, error.code ?? `HTTP_${res.status}`, error.message ?? res.statusText, error.details);
}

const prefetched = new Map<string, Promise<unknown>>();

/** Starts a read before the view that needs it has loaded; that view's first `get` of it takes the answer. */
export function prefetch(path: string, query?: Query): void {
  const key = `${token.value}|${apiUrl(path, query)}`;
  const answer = request('GET', path, query).then((r) => r.json());
  answer.catch(() => undefined); // the view's own get reports it
  prefetched.set(key, answer);
}

export async function get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
  const key = `${token.value}|${apiUrl(path, query)}`;
  const early = prefetched.get(key);
  if (early) {
    prefetched.delete(key);
    return (await early) as T;
  }
  return (await (await request('GET', path, query, undefined, signal)).json()) as T;
}

export async function send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await (await request(method, path, undefined, body)).json()) as T;
}

/** Downloads a read's CSV export (format=csv) as a file: a plain link could not carry the token. */
export function downloadCsv(path: string, query: Query, filename: string): Promise<void> {
  return download('GET', path, { ...query, format: 'csv' }, filename);
}

/** Saves an answer (an export: format=csv or json) as a file, fetched with the tab's credential. */
export async function download(
  method: 'GET' | 'POST',
  path: string,
  query: Query,
  filename: string,
  body?: unknown,
): Promise<void> {
  const res = await request(method, path, query, body);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

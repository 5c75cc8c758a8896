// Walks the sign-in redirects the way a browser does (manual redirects, a cookie jar per host), so HTTP
// tests can sign in through a real identity provider, stop at any step, and replay or tamper with one.
export type Jar = Map<string, Map<string, string>>;

export type Hop = { status: number; location: string | null; setCookies: string[]; body: any; url: string };

export function cookieHeader(jar: Jar, url: string): string | undefined {
  const cookies = jar.get(new URL(url).host);
  return cookies && cookies.size > 0 ? [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
}

/** One request with the jar's cookies; Set-Cookie answers go back into the jar (Max-Age=0 removes). */
export async function hop(jar: Jar, url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Hop> {
  const cookie = cookieHeader(jar, url);
  const res = await fetch(url, { method, redirect: 'manual', headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  const setCookies = res.headers.getSetCookie();
  const host = new URL(url).host;
  for (const line of setCookies) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const cookies = jar.get(host) ?? new Map<string, string>();
    jar.set(host, cookies);
    if (/max-age=0/i.test(line) || value === '') cookies.delete(name);
    else cookies.set(name, value);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  const location = res.headers.get('location');
  return { status: res.status, location: location && new URL(location, url).href, setCookies, body, url };
}

/** Follows redirects from `url` until one leads to `stopAt` (not requested) or a non-redirect answer. */
export async function follow(jar: Jar, url: string, stopAt?: string): Promise<Hop & { next?: string }> {
  let current = url;
  for (let i = 0; i < 20; i++) {
    const h = await hop(jar, current);
    if (h.status < 300 || h.status >= 400 || !h.location) return h;
    if (stopAt && h.location.startsWith(stopAt)) return { ...h, next: h.location };
    current = h.location;
  }
  throw new Error(`too many redirects from ${url}`);
}

/** From /v2/auth/signin to the provider's redirect back to the callback (not followed): the callback URL. */
export async function toCallback(jar: Jar, api: string, redirect = '/'): Promise<string> {
  const start = await hop(jar, `${api}/v2/auth/signin?redirect=${encodeURIComponent(redirect)}`);
  if (start.status !== 302 || !start.location)
    throw new Error(`signin answered ${start.status}: ${JSON.stringify(start.body)}`);
  const back = await follow(jar, start.location, `${api}/v2/auth/callback`);
  if (!back.next) throw new Error(`the provider did not send us back: ${back.status} ${JSON.stringify(back.body)}`);
  return back.next;
}

export const sessionCookieOf = (jar: Jar, api: string) => jar.get(new URL(api).host)?.get('loupe.session_token');

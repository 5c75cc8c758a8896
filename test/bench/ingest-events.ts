// Realistic ingest bodies for the benchmark: several thousand visitors, each with a public IP and a real
// user agent (sent as a secret-key `context`, so geo and bot scoring run), pageviews with referrers and
// UTM tags, custom events with props, some Web Vitals, and optionally error events with ~1 kB stacks.
// Bodies are templates split around their event ids, so a fresh body with unique ids costs one join.
import { readFileSync } from 'node:fs';

type Agent = { ua: string; bot: boolean };
type Stack = { type: string; message: string; stack: string };
export type Visitor = { id: string; ip: string; ua: string; screen: string; language: string };
export type Mix = { errors: number };

const agents = (
  JSON.parse(readFileSync(new URL('../fixtures/user-agents.json', import.meta.url), 'utf8')) as { agents: Agent[] }
).agents.filter((a) => !a.bot);
const stacks = (
  JSON.parse(readFileSync(new URL('../fixtures/stacks.json', import.meta.url), 'utf8')) as { errors: Stack[] }
).errors;

// Deterministic, so two runs send the same traffic.
let seed = 0x2f6b_1d3c;
const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

// First octets of blocks assigned to ISPs in Europe, the Americas and Asia (no private or CGNAT space).
const octets = [
  2, 5, 24, 31, 37, 46, 50, 62, 66, 68, 71, 73, 77, 78, 79, 81, 84, 86, 88, 90, 92, 94, 95, 98, 101, 110, 112, 114, 118,
  121, 124, 151, 176, 177, 178, 179, 181, 186, 187, 188, 189, 190, 200, 201, 212, 213, 217,
];
const screens = ['1920x1080', '1366x768', '1536x864', '390x844', '412x915', '1440x900', '2560x1440'];
const languages = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'pt-BR', 'ja-JP', 'nl-NL'];
const pages = [
  '/',
  '/pricing',
  '/docs/getting-started',
  '/docs/api/ingest',
  '/blog/launch-week',
  '/blog/web-vitals-guide',
  '/features/errors',
  '/features/realtime',
  '/signup',
  '/login',
  '/changelog',
  '/about',
  '/careers',
  '/shop/cart',
  '/shop/p/42',
];
const titles: Record<string, string> = {
  '/': 'Loupe — analytics',
  '/pricing': 'Pricing',
  '/signup': 'Create your account',
};
const referrers = [
  'https://www.google.com/',
  'https://www.bing.com/search?q=web+analytics',
  'https://news.ycombinator.com/',
  'https://t.co/a8Zk2',
  'https://www.reddit.com/r/webdev/',
  'https://duckduckgo.com/',
  'https://github.com/loupe/loupe',
  '',
];
const utms = [
  '',
  '',
  '',
  '?utm_source=newsletter&utm_medium=email&utm_campaign=june',
  '?utm_source=twitter&utm_medium=social',
  '?utm_source=google&utm_medium=cpc&utm_campaign=brand&utm_term=analytics',
];
const customs = ['signup', 'add_to_cart', 'checkout', 'search', 'download', 'share'];

export function makeVisitors(n: number): Visitor[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `vis_${i.toString(36).padStart(5, '0')}_${Math.floor(rand() * 1e9).toString(36)}`,
    ip: `${pick(octets)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
    ua: pick(agents).ua,
    screen: pick(screens),
    language: pick(languages),
  }));
}

const ID = '\u0000ID\u0000';

function event(v: Visitor, mix: Mix): Record<string, unknown> {
  const path = pick(pages);
  const context = { ip: v.ip, userAgent: v.ua };
  const page = {
    url: `https://loupe.example.com${path}${pick(utms)}`,
    referrer: pick(referrers) || undefined,
    title: titles[path] ?? path.slice(1),
  };
  const device = { screen: v.screen, viewport: v.screen, language: v.language, connection: '4g' };
  const base = { id: ID, visitor: v.id, page, device, context, release: 'web@3.14.1' };
  const r = rand();
  if (r < mix.errors) return { ...base, name: 'error', props: errorProps() };
  const rest = (r - mix.errors) / (1 - mix.errors);
  if (rest < 0.7) return { ...base, name: 'pageview' };
  if (rest < 0.95) {
    return {
      ...base,
      name: pick(customs),
      props: {
        plan: pick(['free', 'pro', 'team']),
        value: int(1, 500),
        currency: 'EUR',
        query: pick(['pricing', 'sdk', 'gdpr']),
      },
    };
  }
  return {
    ...base,
    name: 'speed',
    vitals: {
      lcp: int(800, 4000),
      inp: int(40, 400),
      cls: rand() / 4,
      fcp: int(300, 2500),
      ttfb: int(50, 900),
      element: 'img.hero',
    },
  };
}

function errorProps() {
  const s = pick(stacks);
  let stack = s.stack;
  while (stack.length < 1000)
    stack += `\n    at callback (https://loupe.example.com/assets/vendor-${int(1000, 9999)}.js:2:${int(100, 99999)})`;
  const t = Date.now() - 60_000;
  const breadcrumbs = [
    `${t} navigation /shop/cart`,
    `${t + 900} click button#checkout`,
    `${t + 1500} fetch POST /api/cart 500`,
    `${t + 1600} console Failed to load price for item 42`,
  ].join('\n');
  return { message: s.message, type: s.type, stack, breadcrumbs, level: 'error', handled: false };
}

/** Body templates: `size` events each (size 1 sends a bare Event), split where the ids go. */
export function makeTemplates(count: number, size: number, visitors: Visitor[], mix: Mix): string[][] {
  return Array.from({ length: count }, () => {
    const events = Array.from({ length: size }, () => event(pick(visitors), mix));
    return JSON.stringify(size === 1 ? events[0] : { events }).split(JSON.stringify(ID));
  });
}

/** A body source: each call answers a fresh body whose event ids were never sent before, each about as long
 *  as the browser SDK's 21 characters (`<tag of 18>.<index>`; wrk-ingest.lua makes the same). */
export function bodies(templates: string[][], prefix: string): () => string {
  let n = 0;
  const width = Math.max(1, 18 - prefix.length);
  return () => {
    const parts = templates[n % templates.length]!;
    const tag = `${prefix}${(n++).toString(16).padStart(width, '0')}`;
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i++) out += `"${tag}.${i}"${parts[i]}`;
    return out;
  };
}

// What the synthetic traffic is made of: weighted pages, sources, places and devices, shaped like a
// small SaaS site's analytics. Only data here; generate.ts draws from it.
import { weighted } from './random.ts';

export type Page = { path: string; route: string; title: string };
export type Source = {
  channel: string;
  referrer: string | null;
  referrerDomain: string | null;
  utm: { source: string; medium: string; campaign: string | null; term: string | null; content: string | null } | null;
};
export type Place = { country: string; region: string; city: string; language: string };
export type Agent = {
  browser: string;
  browserVersion: string;
  os: string;
  osVersion: string;
  device: string;
  screen: string;
  viewport: string;
};

const BLOG = [
  'launch-week',
  'postgres-partitioning',
  'privacy-first-analytics',
  'web-vitals-guide',
  'pricing-update',
  'self-hosting',
  'why-no-cookies',
  'retention-cohorts',
  'custom-events',
  'open-source-story',
];
const DOCS = ['getting-started', 'install', 'sdk', 'events', 'api', 'self-hosting', 'exports', 'faq'];

export const pages = weighted<Page>([
  [{ path: '/', route: '/', title: 'Loupe — simple analytics' }, 30],
  [{ path: '/pricing', route: '/pricing', title: 'Pricing' }, 12],
  [{ path: '/features', route: '/features', title: 'Features' }, 8],
  [{ path: '/signup', route: '/signup', title: 'Sign up' }, 6],
  [{ path: '/login', route: '/login', title: 'Log in' }, 7],
  [{ path: '/about', route: '/about', title: 'About' }, 2],
  [{ path: '/contact', route: '/contact', title: 'Contact' }, 1.5],
  [{ path: '/changelog', route: '/changelog', title: 'Changelog' }, 2.5],
  [{ path: '/blog', route: '/blog', title: 'Blog' }, 4],
  [{ path: '/docs', route: '/docs', title: 'Docs' }, 5],
  [{ path: '/checkout', route: '/checkout', title: 'Checkout' }, 1.5],
  ...BLOG.map((slug, i): [Page, number] => [
    { path: `/blog/${slug}`, route: '/blog/[slug]', title: slug.replaceAll('-', ' ') },
    6 / (i + 1),
  ]),
  ...DOCS.map((slug, i): [Page, number] => [
    { path: `/docs/${slug}`, route: '/docs/[...slug]', title: `Docs: ${slug}` },
    8 / (i + 1.5),
  ]),
]);

const ref = (channel: string, url: string): Source => ({
  channel,
  referrer: url,
  referrerDomain: new URL(url).hostname.replace(/^www\./, ''),
  utm: null,
});
const utm = (
  channel: string,
  source: string,
  medium: string,
  campaign: string | null,
  url: string | null = null,
): Source => ({
  channel,
  referrer: url,
  referrerDomain: url ? new URL(url).hostname.replace(/^www\./, '') : null,
  utm: { source, medium, campaign, term: medium === 'cpc' ? 'web analytics' : null, content: campaign ? 'v1' : null },
});

export const sources = weighted<Source>([
  [{ channel: 'Direct', referrer: null, referrerDomain: null, utm: null }, 34],
  [ref('Organic Search', 'https://www.google.com/'), 22],
  [ref('Organic Search', 'https://www.bing.com/'), 3],
  [ref('Organic Search', 'https://duckduckgo.com/'), 3],
  [ref('Organic Social', 'https://t.co/'), 3],
  [ref('Organic Social', 'https://www.reddit.com/r/webdev/'), 3],
  [ref('Organic Social', 'https://www.linkedin.com/'), 2],
  [ref('Referral', 'https://news.ycombinator.com/item'), 5],
  [ref('Referral', 'https://github.com/loupe/loupe'), 4],
  [ref('Referral', 'https://www.producthunt.com/posts/loupe'), 2],
  [ref('Email', 'https://mail.google.com/'), 1],
  [utm('Email', 'newsletter', 'email', 'monthly-digest'), 4],
  [utm('Paid Search', 'google', 'cpc', 'brand', 'https://www.google.com/'), 4],
  [utm('Paid Social', 'facebook', 'paid_social', 'spring-promo', 'https://www.facebook.com/'), 2],
  [utm('Organic Social', 'twitter', 'social', 'launch-week', 'https://t.co/'), 2],
  [utm('Affiliates', 'partner-blog', 'affiliate', null, 'https://partnerblog.example/'), 1],
  [utm('Display', 'adnet', 'display', 'retarget', null), 1],
]);

export const places = weighted<Place>([
  [{ country: 'US', region: 'CA', city: 'San Francisco', language: 'en-US' }, 12],
  [{ country: 'US', region: 'NY', city: 'New York', language: 'en-US' }, 10],
  [{ country: 'US', region: 'TX', city: 'Austin', language: 'en-US' }, 5],
  [{ country: 'GB', region: 'ENG', city: 'London', language: 'en-GB' }, 9],
  [{ country: 'DE', region: 'BE', city: 'Berlin', language: 'de-DE' }, 8],
  [{ country: 'FR', region: 'IDF', city: 'Paris', language: 'fr-FR' }, 6],
  [{ country: 'NL', region: 'NH', city: 'Amsterdam', language: 'nl-NL' }, 3],
  [{ country: 'IN', region: 'KA', city: 'Bengaluru', language: 'en-IN' }, 7],
  [{ country: 'BR', region: 'SP', city: 'São Paulo', language: 'pt-BR' }, 4],
  [{ country: 'CA', region: 'ON', city: 'Toronto', language: 'en-CA' }, 4],
  [{ country: 'JP', region: '13', city: 'Tokyo', language: 'ja-JP' }, 3],
  [{ country: 'AU', region: 'NSW', city: 'Sydney', language: 'en-AU' }, 2],
  [{ country: 'ES', region: 'MD', city: 'Madrid', language: 'es-ES' }, 2],
  [{ country: 'PL', region: '14', city: 'Warsaw', language: 'pl-PL' }, 2],
  [{ country: 'SE', region: 'AB', city: 'Stockholm', language: 'sv-SE' }, 1],
  [{ country: 'NG', region: 'LA', city: 'Lagos', language: 'en-NG' }, 1],
]);

export const agents = weighted<Agent>([
  [
    {
      browser: 'Chrome',
      browserVersion: '126',
      os: 'Windows',
      osVersion: '10',
      device: 'desktop',
      screen: '1920x1080',
      viewport: '1903x969',
    },
    24,
  ],
  [
    {
      browser: 'Chrome',
      browserVersion: '126',
      os: 'macOS',
      osVersion: '14',
      device: 'desktop',
      screen: '1512x982',
      viewport: '1512x865',
    },
    14,
  ],
  [
    {
      browser: 'Safari',
      browserVersion: '17',
      os: 'macOS',
      osVersion: '14',
      device: 'desktop',
      screen: '1728x1117',
      viewport: '1728x1000',
    },
    7,
  ],
  [
    {
      browser: 'Firefox',
      browserVersion: '127',
      os: 'Windows',
      osVersion: '10',
      device: 'desktop',
      screen: '1920x1080',
      viewport: '1920x960',
    },
    5,
  ],
  [
    {
      browser: 'Firefox',
      browserVersion: '127',
      os: 'Linux',
      osVersion: '',
      device: 'desktop',
      screen: '2560x1440',
      viewport: '2560x1300',
    },
    3,
  ],
  [
    {
      browser: 'Edge',
      browserVersion: '126',
      os: 'Windows',
      osVersion: '11',
      device: 'desktop',
      screen: '1920x1080',
      viewport: '1903x969',
    },
    5,
  ],
  [
    {
      browser: 'Mobile Safari',
      browserVersion: '17',
      os: 'iOS',
      osVersion: '17.5',
      device: 'mobile',
      screen: '390x844',
      viewport: '390x664',
    },
    20,
  ],
  [
    {
      browser: 'Chrome',
      browserVersion: '126',
      os: 'Android',
      osVersion: '14',
      device: 'mobile',
      screen: '412x915',
      viewport: '412x780',
    },
    15,
  ],
  [
    {
      browser: 'Samsung Internet',
      browserVersion: '25',
      os: 'Android',
      osVersion: '13',
      device: 'mobile',
      screen: '360x800',
      viewport: '360x680',
    },
    2,
  ],
  [
    {
      browser: 'Mobile Safari',
      browserVersion: '17',
      os: 'iOS',
      osVersion: '17.5',
      device: 'tablet',
      screen: '820x1180',
      viewport: '820x1050',
    },
    3,
  ],
]);

export const botAgents = weighted<Agent>([
  [
    {
      browser: 'HeadlessChrome',
      browserVersion: '126',
      os: 'Linux',
      osVersion: '',
      device: 'desktop',
      screen: '800x600',
      viewport: '800x600',
    },
    3,
  ],
  [
    {
      browser: 'Googlebot',
      browserVersion: '2.1',
      os: 'Other',
      osVersion: '',
      device: 'bot',
      screen: '',
      viewport: '',
    },
    2,
  ],
  [{ browser: 'curl', browserVersion: '8.5', os: 'Other', osVersion: '', device: 'bot', screen: '', viewport: '' }, 1],
]);

/** Pageviews per session: about 40% bounce. */
export const sessionLengths = weighted<number>([
  [1, 40],
  [2, 20],
  [3, 13],
  [4, 9],
  [5, 7],
  [6, 5],
  [7, 3.5],
  [8, 2.5],
]);
/** Sessions per visitor over the whole span: most come once. */
export const visitorSessions = weighted<number>([
  [1, 68],
  [2, 14],
  [3, 7],
  [4, 4],
  [5, 3],
  [6, 2],
  [8, 1.2],
  [12, 0.8],
]);

export const plans = weighted<string>([
  ['free', 70],
  ['pro', 22],
  ['team', 8],
]);
export const ctaPlaces = weighted<string>([
  ['hero', 5],
  ['pricing', 3],
  ['footer', 1],
  ['nav', 2],
]);
/** Errors as the browser SDK reports them: type, message and a (V8) stack, which ingest groups into issues. */
export const errorKinds = weighted<{ type: string; message: string; stack: string }>([
  [
    {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      stack:
        "TypeError: Cannot read properties of undefined (reading 'id')\n" +
        '    at loadUser (https://shop.example.com/assets/app-4f3a2b1c.js:1:2481)\n' +
        '    at async boot (https://shop.example.com/assets/app-4f3a2b1c.js:1:913)',
    },
    5,
  ],
  [
    {
      type: 'ReferenceError',
      message: 'gtag is not defined',
      stack:
        'ReferenceError: gtag is not defined\n    at track (https://shop.example.com/assets/vendor-9e8d7c6b.js:2:118)',
    },
    2,
  ],
  [
    {
      type: 'TypeError',
      message: 'Failed to fetch',
      stack:
        'TypeError: Failed to fetch\n    at request (https://shop.example.com/assets/api-1a2b3c4d.js:1:377)\n' +
        '    at loadCart (https://shop.example.com/assets/app-4f3a2b1c.js:1:3310)',
    },
    3,
  ],
]);
export const releases = ['1.4.0', '1.4.1', '1.5.0', '1.6.0'];

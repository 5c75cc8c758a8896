// The geo step of enrichment: the IP database's place, or a trusted CDN's country header over it (and then
// nothing finer, since region, city, coordinates and time zone belonged to the other country); and what a
// server's request says of itself kept apart from the visitor it forwards.
import t from 'tap';
import { enrich, type RequestFacts } from '../../src/ingest/enrich.ts';
import type { IngestEvent } from '../../src/ingest/event-schema.ts';
import { openGeo } from '../../src/ingest/geo.ts';

const lookups = { geo: await openGeo(), isDatacenterIp: () => false };
const facts = (trustProxy: boolean, headers: Record<string, string> = {}): RequestFacts => ({
  projectId: 'site',
  salt: 'salt',
  keyKind: 'secret',
  ip: '81.2.69.142',
  userAgent: null,
  headers,
  trustProxy,
  internal: false,
  receivedAt: Date.now(),
});
const event = { id: 'e1', name: 'pageview', visitor: 'v1' } as IngestEvent;
const place = (row: ReturnType<typeof enrich>) => ({
  country: row.country,
  region: row.region,
  city: row.city,
  postal_code: row.postal_code,
  timezone: row.timezone,
  latitude: row.latitude,
  longitude: row.longitude,
});

t.test('the IP database gives the place, its time zone from the coordinates', async (t) => {
  t.match(place(enrich(event, facts(false), lookups)), {
    country: 'GB',
    region: 'England',
    city: 'London',
    postal_code: null,
    timezone: 'Europe/London',
    latitude: Number,
    longitude: Number,
  });
});

t.test('a trusted CDN country header wins, and drops what the database said of the other country', async (t) => {
  t.same(place(enrich(event, facts(true, { 'cf-ipcountry': 'FR' }), lookups)), {
    country: 'FR',
    region: null,
    city: null,
    postal_code: null,
    timezone: null,
    latitude: null,
    longitude: null,
  });
  t.equal(
    enrich(event, facts(true, { 'cf-ipcountry': 'GB' }), lookups).city,
    'London',
    "the same country: the database's place stays",
  );
  t.equal(
    enrich(event, facts(false, { 'cf-ipcountry': 'FR' }), lookups).country,
    'GB',
    'without TRUST_PROXY the header is ignored',
  );
});

t.test(
  "a server forwarding its visitor (secret key, context): the request's own CDN country and client hints are the server's",
  async (t) => {
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
    const chromeHints = { 'cf-ipcountry': 'US', 'sec-ch-ua': '"Chromium";v="131", "Google Chrome";v="131"' };
    const forwarded = enrich(
      { ...event, context: { ip: '81.2.69.142', userAgent: firefox } },
      facts(true, chromeHints),
      lookups,
    );
    t.match(place(forwarded), { country: 'GB', city: 'London' }, "the visitor's address, not the server's CDN country");
    t.equal(forwarded.bot_signals.uaMismatch, null, "Firefox's agent is not compared with the server's Chrome hints");
    t.equal(forwarded.browser, 'Firefox');
    const own = enrich(event, { ...facts(true, chromeHints), userAgent: firefox }, lookups);
    t.equal(own.country, 'US', 'without context the request is the visitor: its CDN country wins');
    t.equal(own.bot_signals.uaMismatch, true, 'and its hints are compared with its agent');
  },
);

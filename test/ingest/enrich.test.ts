// The geo step of enrichment: the IP database's place, or a trusted CDN's country header over it (and then
// nothing finer, since region, city, coordinates and time zone belonged to the other country).
import t from 'tap';
import { enrich, type RequestFacts } from '../../src/ingest/enrich.ts';
import type { IngestEvent } from '../../src/ingest/event-schema.ts';
import { openGeo } from '../../src/ingest/geo.ts';

const lookups = { geo: await openGeo(), isDatacenterIp: () => false };
const facts = (trustProxy: boolean, headers: Record<string, string> = {}): RequestFacts => ({
  projectId: 'site', salt: 'salt', keyKind: 'secret', ip: '81.2.69.142', userAgent: null, headers, trustProxy, internal: false, receivedAt: Date.now(),
});
const event = { id: 'e1', name: 'pageview', visitor: 'v1' } as IngestEvent;
const place = (row: ReturnType<typeof enrich>) => ({
  country: row.country, region: row.region, city: row.city, postal_code: row.postal_code, timezone: row.timezone, latitude: row.latitude, longitude: row.longitude,
});

t.test('the IP database gives the place, its time zone from the coordinates', async (t) => {
  t.match(place(enrich(event, facts(false), lookups)), { country: 'GB', region: 'England', city: 'London', postal_code: null, timezone: 'Europe/London', latitude: Number, longitude: Number });
});

t.test('a trusted CDN country header wins, and drops what the database said of the other country', async (t) => {
  t.same(place(enrich(event, facts(true, { 'cf-ipcountry': 'FR' }), lookups)),
    { country: 'FR', region: null, city: null, postal_code: null, timezone: null, latitude: null, longitude: null });
  t.equal(enrich(event, facts(true, { 'cf-ipcountry': 'GB' }), lookups).city, 'London', 'the same country: the database\'s place stays');
  t.equal(enrich(event, facts(false, { 'cf-ipcountry': 'FR' }), lookups).country, 'GB', 'without TRUST_PROXY the header is ignored');
});

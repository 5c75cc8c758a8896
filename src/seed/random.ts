// A seeded pseudo-random source for the synthetic traffic: the same seed gives the same data, so a
// failing seed test can be replayed. Weighted choices are precomputed tables, cheap per draw.

export type Random = {
  next: () => number;
  int: (min: number, max: number) => number;
  chance: (p: number) => boolean;
  pick: <T>(table: Weighted<T>) => T;
  id: (length: number) => string;
};

/** A choice table: items with cumulative weights, built once. */
export type Weighted<T> = { items: T[]; cumulative: number[]; total: number };

export function weighted<T>(pairs: [T, number][]): Weighted<T> {
  let total = 0;
  const cumulative = pairs.map(([, w]) => (total += w));
  return { items: pairs.map(([item]) => item), cumulative, total };
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** mulberry32: small, fast, good enough for traffic that only has to look plausible. */
export function createRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(table: Weighted<T>): T => {
      const r = next() * table.total;
      const c = table.cumulative;
      let lo = 0;
      let hi = c.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (c[mid]! > r) hi = mid;
        else lo = mid + 1;
      }
      return table.items[lo]!;
    },
    id: (length) => {
      let s = '';
      for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * 36)];
      return s;
    },
  };
}

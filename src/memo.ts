// A bounded memo for enrichment lookups whose answer depends only on their inputs (a user agent, an IP
// address, a page URL, a stack): the same visitor sends many events, so most lookups repeat. The caller
// names the key; `compute` runs only on a miss, and is given the key: a function made once, that needs
// nothing else, then spares every event a closure of its own.
//
// Entries live in two generations of half the bound each: new answers go into the young map, a hit in the
// old one is copied into the young, and when the young map is full it becomes the old one and the old is
// dropped whole. So an entry used again stays, one not used again goes after between half the bound and
// the bound of newer entries, and nothing is ever deleted one by one: a Map keeps a deleted entry's slot
// until it grows again, so taking "the oldest" by `keys().next()` would walk over every slot deleted before
// it, and a miss in a full memo would cost ten times a hit.

export function createMemo<T>(max: number): (key: string, compute: (key: string) => T) => T {
  const half = Math.max(1, Math.ceil(max / 2));
  let young = new Map<string, T>();
  let old = new Map<string, T>();
  return (key, compute) => {
    let value = young.get(key);
    if (value !== undefined) return value;
    value = old.get(key);
    if (value === undefined) value = compute(key);
    young.set(key, value);
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
    return value;
  };
}

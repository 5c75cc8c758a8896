// A bounded memo for enrichment lookups whose answer depends only on their inputs (a user agent, an IP
// address, a page URL): the same visitor sends many events, so most lookups repeat. When full, the oldest
// entry goes (a hit costs one map lookup; a hot key evicted is simply computed again). The caller names
// the key; `compute` runs only on a miss, and is given the key: a function made once, that needs nothing
// else, then spares every event a closure of its own.

export function createMemo<T>(max: number): (key: string, compute: (key: string) => T) => T {
  const cache = new Map<string, T>();
  return (key, compute) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    cache.set(key, value);
    if (cache.size > max) cache.delete(cache.keys().next().value!);
    return value;
  };
}

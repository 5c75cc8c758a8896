// A bounded memo for enrichment lookups whose answer depends only on their inputs (a user agent, an IP
// address, a page URL): the same visitor sends many events, so most lookups repeat. When full, the oldest
// entry goes (a hit costs one map lookup; a hot key evicted is simply computed again). The caller names
// the key; `compute` runs only on a miss.

export function createMemo<T>(max: number): (key: string, compute: () => T) => T {
  const cache = new Map<string, T>();
  return (key, compute) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    cache.set(key, value);
    if (cache.size > max) cache.delete(cache.keys().next().value!);
    return value;
  };
}

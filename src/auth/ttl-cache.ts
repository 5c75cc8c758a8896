// A small map with a time to live and a size bound (oldest entry out first): credential look-ups, overviews.
export class TtlCache<K, V> {
  private readonly map = new Map<K, { value: V; until: number }>();
  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, { value, until: this.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  /** Deletes every entry whose value matches: a scan of at most maxEntries, for rare events (revocation). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.map) if (matches(entry.value)) this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

// The order in which a map's entries were placed, oldest first, for a live map that drops its stalest
// entries from the front (the realtime window's visitors). An entry that moves to the end (placed again,
// with a later placedAt) or leaves the map is not looked for: its old place is skipped when it reaches the
// front, because it no longer matches.
//
// Why not the map's own order (a move as delete and set, the stalest entry first in iteration): a Map
// keeps a deleted entry's slot until it next grows, and every walk from the front steps over all the
// slots deleted before the first live one. The realtime window prunes on every record, so with tens of
// thousands of visitors online that walk would cost more than the record (npm run bench:live-order). The
// sessionizer walks its front only at its cap (eviction), so it keeps the Map's order.

export class PlacementOrder<T extends { placedAt: number }> {
  private items: T[] = [];
  private at: number[] = [];
  private head = 0;

  /** `map` holds the live entries, `keyOf` names an entry's key: an item in the order is current while the
   *  map holds it under its key, placed at the same time as when it was queued. */
  constructor(
    private readonly map: ReadonlyMap<string, T>,
    private readonly keyOf: (item: T) => string,
  ) {}

  /** Queues `item` at its placedAt, at the end. The places no longer current are dropped once they are
   *  more than the map holds (and a thousand): however often the front is walked, the array stays within
   *  a bound of the map's size. */
  place(item: T): void {
    this.items.push(item);
    this.at.push(item.placedAt);
    if (this.length > 2 * this.map.size + 1024) this.keepCurrent();
  }

  /** The oldest current item, left in place; null when there is none. */
  oldest(): T | null {
    while (this.head < this.items.length) {
      if (this.current(this.head)) return this.items[this.head]!;
      this.skip();
    }
    return null;
  }

  private skip(): void {
    this.head++;
    // Compacted once the spent front is half the array: each place is copied at most once on average.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.at = this.at.slice(this.head);
      this.head = 0;
    }
  }

  private keepCurrent(): void {
    const items: T[] = [];
    const at: number[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      if (this.current(i)) (items.push(this.items[i]!), at.push(this.at[i]!));
    }
    this.items = items;
    this.at = at;
    this.head = 0;
  }

  private current(i: number): boolean {
    const item = this.items[i]!;
    return this.map.get(this.keyOf(item)) === item && item.placedAt === this.at[i];
  }

  /** Places held, current or not (for tests of the bound). */
  get length(): number {
    return this.items.length - this.head;
  }
}

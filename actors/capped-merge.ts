// A visitor's traits, groups and experiments merged as the stored row merges them (loupe_merge_capped),
// kept to a fixed number of keys so no row grows without bound. Used by the actor's checkpoint merge.

/** Keys a visitor's merged traits, groups and experiments may hold: the stored merge (loupe_merge_capped in
 *  upsert_visitors.sql, 0017_capped_merges.sql) keeps to the same numbers, so no row grows without bound. */
export const MAX_STORED_KEYS = { traits: 50, groups: 20, experiments: 50 } as const;

/** `{...old, ...next}` kept to `max` keys as loupe_merge_capped does: every key of `next`, then `old`'s other
 *  keys in key order while there is room. */
export function mergeCapped<T>(old: Record<string, T>, next: Record<string, T>, max: number): Record<string, T> {
  const merged = { ...old, ...next };
  const keys = Object.keys(merged);
  if (keys.length <= max) return merged;
  const out: Record<string, T> = {};
  const kept = Object.keys(next).sort().slice(0, max);
  for (const k of kept) out[k] = next[k]!;
  for (const k of Object.keys(old).sort()) {
    if (kept.length >= max) break;
    if (!Object.hasOwn(next, k)) ((out[k] = old[k]!), kept.push(k));
  }
  return out;
}

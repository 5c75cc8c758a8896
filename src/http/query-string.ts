// Parses a query string into plain values: a repeated key keeps its first value, and the bracketed
// map `filter[<dimension>]=value` (or `=!value` to exclude) becomes `filter: { dimension: value }`.
export type QueryValues = Record<string, string | Record<string, string>>;

export function parseQueryString(qs: string): QueryValues {
  const out: QueryValues = {};
  if (!qs) return out;
  for (const [key, value] of new URLSearchParams(qs)) {
    const bracket = /^([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]$/.exec(key);
    if (bracket) {
      const [, name, inner] = bracket as unknown as [string, string, string];
      const map = typeof out[name] === 'object' ? (out[name] as Record<string, string>) : {};
      if (!(inner in map)) map[inner] = value;
      out[name] = map;
    } else if (!(key in out)) {
      out[key] = value;
    }
  }
  return out;
}

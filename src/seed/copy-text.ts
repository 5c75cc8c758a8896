// COPY's text format: tab-separated, \N for null, backslash escapes for backslash, tab and line breaks.

export function copyLine(values: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : '\t') + copyValue(values[i]);
  return out;
}

const SPECIAL = /[\\\t\n\r]/;

export function copyValue(x: unknown): string {
  if (x === null || x === undefined) return '\\N';
  const s = typeof x === 'string' ? x : x instanceof Date ? x.toISOString() : typeof x === 'boolean' ? (x ? 't' : 'f')
    : typeof x === 'object' ? JSON.stringify(x) : String(x);
  return SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s;
}

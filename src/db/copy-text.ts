// COPY's text format: tab-separated, \N for null, backslash escapes for backslash, tab and line breaks.

export function copyLine(values: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : '\t') + copyValue(values[i]);
  return out;
}

const SPECIAL = /[\\\t\n\r]/;

export function copyValue(x: unknown): string {
  if (x === null || x === undefined) return '\\N';
  if (typeof x === 'string')
    return SPECIAL.test(x)
      ? x.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
      : x;
  if (x instanceof Date) return x.toISOString();
  if (typeof x === 'boolean') return x ? 't' : 'f';
  // JSON text never holds a raw tab or line break (JSON escapes them): only its backslashes need doubling.
  if (typeof x === 'object') return JSON.stringify(x).replaceAll('\\', '\\\\');
  return String(x);
}

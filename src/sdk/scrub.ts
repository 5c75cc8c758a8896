// The one scrub shared by the browser SDK and the server (spec Events, rule 6). Dependency-free and
// browser-safe; it must stay idempotent (the server scrubs again) and must keep `file:line:col` of a
// stack frame intact, because the server groups by the top frame of an already scrubbed stack.
//
// How rule 6 is read: "drops query strings, drops up to the colon before a stack frame's line number"
// is one rule about query strings: `?…` is dropped up to whitespace, a quote or a paren, and inside a
// frame location only up to the colon before the line number, so `https://a.com/x.js?v=1:1:20`
// becomes `https://a.com/x.js:1:20`. Paths and file names are never cut away.
// Then emails, tokens of 20+ `[A-Za-z0-9_-]` and runs of 6+ digits become `[x]`. One exception: a run
// directly followed by a script extension (`_app-0a1b2c3d4e5f6a7b.js`) is a public bundle file name,
// not a secret, and is kept so grouping can still strip its content hash.

// No lookbehind: Safari before 16.4 rejects it at parse time, which would break the whole bundle.
const QUERY = /([\w/.~%-])\?[^\s'"()<>`]+?(?=(?::\d+){1,2}(?=[\s'"()<>`]|$)|[\s'"()<>`]|$)/g;
// The local part starts at a boundary (captured, not looked behind), which keeps the scan linear.
const EMAIL = /(^|[^A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-]|:\d)/g;
const SCRIPT_EXT = /^\.(?:m?js|cjs|jsx|tsx?|css|map|wasm)(?![A-Za-z0-9])/;
const SPACE = /\s/;
const MASK = '[x]';

export function scrub(text: string): string {
  // Each pattern needs its character: most texts (a breadcrumb, a message) hold neither, and a regex call
  // costs more than the search.
  const noQuery = text.includes('?') ? text.replace(QUERY, '$1') : text;
  return maskRuns(noQuery.includes('@') ? noQuery.replace(EMAIL, `$1${MASK}`) : noQuery);
}

// Masks the runs of `[A-Za-z0-9_-]` that are 20+ long or hold 6+ digits in a row, in one pass over the
// characters (a regex for it backtracks within every word: this is about ten times faster on a stack).
// A frame's `:line:col` before whitespace, `)` or the end is skipped whole and kept: minified bundles
// have 6-digit columns. Every run is judged whole, from its first character.
function maskRuns(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === 58) {
      // ':'
      i = framePositionEnd(text, i);
      continue;
    }
    if (!isRunChar(code)) {
      i++;
      continue;
    }
    let end = i;
    let digits = 0;
    let masked = false;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (!isRunChar(c)) break;
      digits = c >= 48 && c <= 57 ? digits + 1 : 0;
      if (digits >= 6) masked = true;
    }
    if ((masked || end - i >= 20) && !SCRIPT_EXT.test(text.slice(end, end + 8))) {
      out += text.slice(copied, i) + (end - i >= 20 ? MASK : text.slice(i, end).replace(/\d{6,}/g, MASK));
      copied = end;
    }
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// Past `:\d+:\d+` at `colon` when whitespace, `)` or the end follows it; else just past the colon.
function framePositionEnd(text: string, colon: number): number {
  const line = digitsEnd(text, colon + 1);
  if (line === colon + 1 || text.charCodeAt(line) !== 58) return colon + 1;
  const column = digitsEnd(text, line + 1);
  if (column === line + 1) return colon + 1;
  return column === text.length || text.charCodeAt(column) === 41 || isSpace(text.charCodeAt(column))
    ? column
    : colon + 1;
}

// What `\s` matches, without a regex call for the ASCII ones (a stack has a frame position on every line).
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && SPACE.test(String.fromCharCode(code)));
}

function digitsEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return i;
}

// [A-Za-z0-9_-], looked up: it is asked of every character of every stack
const RUN_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  RUN_CHARS[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 ? 1 : 0;
function isRunChar(c: number): boolean {
  return c < 128 && RUN_CHARS[c] === 1;
}

// Cut to at most `max` UTF-16 units without splitting a surrogate pair.
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, Math.max(0, end));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

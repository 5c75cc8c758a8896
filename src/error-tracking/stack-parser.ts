// Parses V8, SpiderMonkey and JavaScriptCore stack text into frames, top (most recent) first, and
// marks which frames belong to the site. Pure text work: no Error objects, no source maps, no I/O.
// Lines that are not frames (the "TypeError: …" header, message continuations) are skipped.

export type Frame = {
  file: string | null;
  line: number | null;
  column: number | null;
  function: string | null;
  inApp: boolean;
};

export function parseStack(stack: string | null | undefined): Frame[] {
  return stack ? [...eachFrame(stack)] : [];
}

/** The first frame that passes `test`, parsing no further (grouping needs only the top in-app frame). */
export function findFrame(stack: string | null | undefined, test: (frame: Frame) => boolean): Frame | null {
  if (stack) for (const frame of eachFrame(stack)) if (test(frame)) return frame;
  return null;
}

function* eachFrame(stack: string): Generator<Frame> {
  // A V8 stack is read by its `at` lines only, so a header or message line holding an `@` is no frame.
  const isV8 = /^\s*at\s/m.test(stack);
  for (let start = 0; start <= stack.length;) {
    let end = stack.indexOf('\n', start);
    if (end === -1) end = stack.length;
    const line = stack.slice(start, end).trim();
    start = end + 1;
    const frame = isV8 ? (V8_LINE.test(line) ? parseV8(line) : null) : parseGeckoOrJsc(line);
    if (frame) yield frame;
  }
}

const V8_LINE = /^at\s/;
const LOCATION = /^(.+?):(\d+)(?::(\d+))?$/;
const EVAL_ORIGIN = /\((\S+?:\d+:\d+)\)/;
const GECKO_EVAL = /^(.*?) line (\d+) > (?:eval|Function)/;
const BARE_LOCATION = /^(?:\S+:\d+:\d+|\[native code\])$/;

// `at fn (loc)`, `at loc`, `at async fn (loc)`, `at new X (loc)`, `at eval (eval at f (loc), …)`.
function parseV8(line: string): Frame | null {
  const body = line.replace(V8_LINE, '').trim();
  const open = body.endsWith(')') ? body.indexOf(' (') : -1; // indexOf, not a regex: linear on hostile input
  const fn = open === -1 ? null : body.slice(0, open).replace(/^async\s+/, '');
  let location = open === -1 ? body : body.slice(open + 2, -1);
  if (location.startsWith('eval at ')) location = EVAL_ORIGIN.exec(location)?.[1] ?? '<anonymous>';
  if (/^index \d+$/.test(location)) return frame(fn, null, null, null); // `at async Promise.all (index 0)`
  return withLocation(fn, location);
}

// `fn@loc`, `@loc`, `global code@loc`, `map@[native code]`, `fn@file line 2 > eval:1:1`, bare `[native code]`.
function parseGeckoOrJsc(line: string): Frame | null {
  const at = line.indexOf('@'); // the first @: a URL may hold one (`/npm/lodash@4.17.21/…`), a name does not
  if (at === -1) return BARE_LOCATION.test(line) ? withLocation(null, line) : null;
  const fn = line.slice(0, at).replace(/^async\*/, ''); // Firefox marks async callers `async*fn@…`
  const location = line.slice(at + 1);
  const evalled = GECKO_EVAL.exec(location);
  if (evalled) return frame(fn, evalled[1], Number(evalled[2]), null);
  if (location !== '[native code]' && !LOCATION.test(location)) return null; // text with an @, not a frame
  return withLocation(fn, location);
}

function withLocation(fn: string | null, location: string): Frame {
  const parts = LOCATION.exec(location);
  if (!parts) return frame(fn, location || null, null, null);
  return frame(fn, parts[1], Number(parts[2]), parts[3] === undefined ? null : Number(parts[3]));
}

function frame(fn: string | null, file: string | null, line: number | null, column: number | null): Frame {
  return { file, line, column, function: fn ? fn.trim() || null : null, inApp: isInApp(file) };
}

const NOT_APP_FILES = new Set(['<anonymous>', '[native code]', 'native', 'eval code']);
const EXTENSION_SCHEME = /^(?:chrome|moz|safari|safari-web|ms-browser)-extension:\/\//i;
const RUNTIME_SCHEME = /^(?:node:|internal\/)/;
const LIBRARY_HOST =
  /^https?:\/\/(?:cdn\.jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare\.com|[^/]*\.googleapis\.com|[^/]*googletagmanager\.[^/]+)(?::\d+)?(?:\/|$)/i;

export function isInApp(file: string | null): boolean {
  if (!file || NOT_APP_FILES.has(file)) return false;
  if (EXTENSION_SCHEME.test(file) || RUNTIME_SCHEME.test(file)) return false;
  if (file.includes('node_modules/') || file.includes('/npm/')) return false;
  return !LIBRARY_HOST.test(file);
}

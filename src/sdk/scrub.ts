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
const QUERY = /([\w/.~%-])\?[^\s'"()<>`]+?(?=(?::\d+){1,2}(?=[\s'"()<>`]|$)|[\s'"()<>`]|$)/g
// The local part starts at a boundary (captured, not looked behind), which keeps the scan linear.
const EMAIL = /(^|[^A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-]|:\d)/g
// A frame's `:line:col` is matched first and kept as is: minified bundles have 6-digit columns. Then only
// the runs that can be masked: 20+ characters, or 6+ digits somewhere in them. A run that is neither has
// no part that is either, so every match still spans a whole run (and a stack of ordinary words costs
// no callback a word).
const RUN = /:\d+:\d+(?=[\s)]|$)|[A-Za-z0-9_-]{20,}|[A-Za-z0-9_-]*\d{6,}[A-Za-z0-9_-]*/gm
const SCRIPT_EXT = /^\.(?:m?js|cjs|jsx|tsx?|css|map|wasm)(?![A-Za-z0-9])/
const MASK = '[x]'

export function scrub (text: string): string {
  return text
    .replace(QUERY, '$1')
    .replace(EMAIL, `$1${MASK}`)
    .replace(RUN, (run, offset: number, whole: string) => {
      if (run.startsWith(':')) return run
      if (SCRIPT_EXT.test(whole.slice(offset + run.length, offset + run.length + 8))) return run
      if (run.length >= 20) return MASK
      return run.replace(/\d{6,}/g, MASK)
    })
}

// Cut to at most `max` UTF-16 units without splitting a surrogate pair.
export function cut (text: string, max: number): string {
  if (text.length <= max) return text
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max
  return text.slice(0, Math.max(0, end))
}

function isHighSurrogate (code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

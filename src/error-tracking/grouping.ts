// Turns one error (type, message, parsed frames) into its issue key, title and culprit (spec "Issue",
// grouping rule). Pure and deterministic; the same key whether the stack was scrubbed by the SDK or not.
// Key = sha1(type, normalised message, top in-app frame as origin-less file without content hash or
// query + function unless minified); line and column are left out, they move with every deploy.
import { createHash } from 'node:crypto';
import { cut, scrub } from '../sdk/scrub.ts';
import type { Frame } from './stack-parser.ts';

export type Fingerprint = { key: string; title: string; culprit: string };

export function fingerprint(input: { type: string | null; message: string | null; frames: Frame[] }): Fingerprint {
  const type = input.type?.trim() || 'Error';
  // Cut as stored (255) before normalising: bounds the regex work on hostile input.
  const message = cut(oneLine(scrub(input.message ?? '')), 255);
  const top = input.frames.find((frame) => frame.inApp && frame.file);
  const file = top?.file ? normaliseFile(top.file) : '';
  const fn = top ? groupFunction(top.function) : '';
  const key = createHash('sha1')
    .update(JSON.stringify([type, normaliseMessage(message), file, fn]))
    .digest('hex');
  const title = cut(message ? `${type}: ${message}` : type, 255);
  const culprit = file && fn ? `${fn} (${file})` : file;
  return { key, title, culprit };
}

// `https://host/assets/index-4f9a2b1c.js?v=1:1:2` → `/assets/index.js`. The origin is dropped so a CDN
// move or a second domain of the same site keeps the issue.
export function normaliseFile(file: string): string {
  const path = file
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    .replace(/[?#].*$/, '')
    .replace(/:\d+(?::\d+)?$/, '');
  const slash = path.lastIndexOf('/');
  return path.slice(0, slash + 1) + stripContentHash(path.slice(slash + 1));
}

// Drops the `-hash` or `.hash` segment just before the extension: hex of 8+ (webpack, CRA, Next.js), an
// 8-character Rollup/Vite hash (base64url, so it may hold `-` or `_`), or a hash the scrub already turned
// into `[x]`.
function stripContentHash(name: string): string {
  const ext = /(?:\.chunk)?\.[A-Za-z0-9]+$/.exec(name);
  if (!ext) return name;
  const stem = name.slice(0, ext.index);
  const hash = /[-.](\[x\]|[0-9a-f]{8,})$/i.exec(stem) ?? /[-.]([A-Za-z0-9_-]{8})$/.exec(stem);
  return hash && isHash(hash[1]!) ? stem.slice(0, hash.index) + ext[0] : name;
}

// A Rollup hash is told from a word by a digit or an inner capital; one holding a `-` from hyphenated
// words (`404-page`, `24-solid`) by both cases of letters, which such words lack (a real hash lacks one
// case about one time in 70, and then opens an issue of its own on a deploy).
function isHash(segment: string): boolean {
  if (segment === '[x]' || /^[0-9a-f]{8,}$/i.test(segment)) return true;
  const mixedCase = /[A-Z]/.test(segment) && /[a-z]/.test(segment);
  if (segment.includes('-')) return mixedCase;
  return /\d/.test(segment) || (/^.+[A-Z]/.test(segment) && mixedCase);
}

// Minified names (3 characters or fewer) are left out. `Object.n [as handler]` counts as minified: its
// own name is `n`. `async`/`new` and Firefox's `/<`, `*` decorations are not part of the name.
function groupFunction(name: string | null): string {
  const clean = (name ?? '')
    .replace(/\s*\[as [^\]]*\]$/, '')
    .replace(/^(?:async|new)\s+/, '')
    .replace(/[/<*]+$/, '');
  const own = clean.slice(clean.lastIndexOf('.') + 1);
  return own.length <= 3 ? '' : clean;
}

// Expects a message already cut to 255 (some patterns are quadratic on long input). Values that vary
// per occurrence become placeholders; words, identifiers, quoted property names and
// status codes stay, so "reading 'price'" and "status 404" keep their meaning.
export function normaliseMessage(message: string): string {
  return message
    .replace(/(?:[a-z][a-z0-9+.-]{0,30}:\/\/|\/)[^\s'"()]+\.(?:m?js|css)\b/gi, (url) => normaliseFile(url))
    .replace(/(?<!\w)(["'`])([^"'`]*\s[^"'`]*|[^"'`]{41,})\1(?!\w)/g, '$1<v>$1')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>')
    .replace(
      /\b(?:(status|code|http|errno)(\s*[:=#]?\s*))?(\d+(?:\.\d+)?)(?!\d)/gi,
      (all, word?: string, gap?: string, num?: string) =>
        word && /^\d{3}$/.test(num ?? '') ? all : `${word ?? ''}${gap ?? ''}<n>`,
    );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

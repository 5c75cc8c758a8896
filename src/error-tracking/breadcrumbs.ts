// Breadcrumb lines (`<unix_ms> <kind> <message>`, spec Events rule 3) and the server's re-scrub of error
// props before storing (rule 7). Malformed lines are dropped, never an error: the props came from a browser.
import { createMemo } from '../memo.ts';
import { cut, scrub } from '../sdk/scrub.ts';

export type Breadcrumb = { ts: string; kind: string; message: string };

export type ErrorProps = {
  message?: string;
  type?: string;
  stack?: string;
  level?: string;
  breadcrumbs?: string;
  [prop: string]: unknown;
};

export const LIMITS = { message: 255, stack: 2048, crumbMessage: 200, crumbLines: 20, crumbTotal: 2048 } as const;

const LINE = /^(\d{1,15}) ([A-Za-z][\w-]{0,31})(?: (.*))?$/;

export function parseBreadcrumbs(text: string | null): Breadcrumb[] {
  if (!text) return [];
  const crumbs: Breadcrumb[] = [];
  for (const line of text.split('\n')) {
    const parts = LINE.exec(line.replace(/\r$/, ''));
    if (!parts) continue; // 15 digits at most, so the date is always valid
    crumbs.push({ ts: new Date(Number(parts[1])).toISOString(), kind: parts[2], message: parts[3] ?? '' });
  }
  return crumbs;
}

// Returns a copy; members other than message, stack and breadcrumbs are left as they came.
export function scrubErrorProps(props: ErrorProps): ErrorProps {
  const out: ErrorProps = { ...props };
  if (typeof props.message === 'string') out.message = messages(props.message, scrubMessage);
  if (typeof props.stack === 'string') out.stack = stacks(props.stack, scrubStack);
  if (typeof props.breadcrumbs === 'string') out.breadcrumbs = scrubBreadcrumbs(props.breadcrumbs);
  return out;
}

// Keeps well-formed lines only, re-scrubbed and cut; the last 20; then drops the oldest while the text
// is over 2048 characters.
export function scrubBreadcrumbs(text: string): string {
  // A plain loop: every error event passes through here, and destructuring each match as an array went
  // through the iterator protocol.
  const lines: string[] = [];
  let size = -1; // the joined length: each line and its '\n'
  for (const raw of text.split('\n')) {
    const parts = LINE.exec(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (parts === null) continue;
    const line = `${parts[1]} ${parts[2]} ${cut(scrub(parts[3] ?? ''), LIMITS.crumbMessage)}`.trimEnd();
    lines.push(line);
    size += line.length + 1;
  }
  let first = Math.max(0, lines.length - LIMITS.crumbLines);
  for (let i = 0; i < first; i++) size -= lines[i]!.length + 1;
  while (first < lines.length && size > LIMITS.crumbTotal) size -= lines[first++]!.length + 1;
  return (first === 0 ? lines : lines.slice(first)).join('\n');
}

// The same error reaches us from many visitors: its message and stack are scrubbed once (keyed by the
// text itself, so a miss costs no copy of a long stack).
const messages = createMemo<string>(2_000);
const stacks = createMemo<string>(2_000);
const scrubMessage = (message: string) => cut(scrub(message), LIMITS.message);
const scrubStack = (stack: string) => cut(scrub(stack), LIMITS.stack);

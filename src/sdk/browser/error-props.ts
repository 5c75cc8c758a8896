// Pure parts of the errors plugin (spec Events, rules 1, 3 and 6): turning a thrown value into an
// Error-like shape, the error event's props with their limits, and the breadcrumb trail.
// Nothing here scrubs a captured error: captureError's callers scrub first (rule 6).
import type { Props } from '../event.ts';
import { cut, scrub } from '../scrub.ts';

export const MAX_MESSAGE = 255;
export const MAX_STACK = 2048;
export const MAX_BREADCRUMBS = 20;
export const MAX_BREADCRUMB_MESSAGE = 200;
export const MAX_BREADCRUMBS_TOTAL = 2048;

export type ErrorLike = { name: string; message: string; stack?: string };
export type BreadcrumbKind = 'navigation' | 'click' | 'fetch' | 'event';

/** Rule 1: anything that is not an Error becomes one whose message is String(value), with no stack. */
export function toErrorLike(value: unknown): ErrorLike {
  if (isError(value)) {
    const stack = typeof value.stack === 'string' && value.stack.length > 0 ? value.stack : undefined;
    return stack
      ? { name: String(value.name || 'Error'), message: String(value.message), stack }
      : { name: String(value.name || 'Error'), message: String(value.message) };
  }
  return { name: 'Error', message: safeString(value) };
}

/** What the plugin's own handlers do before captureError, as a caller that scrubs its text. */
export function scrubError(error: ErrorLike): ErrorLike {
  const scrubbed: ErrorLike = { name: error.name, message: scrub(error.message) };
  if (error.stack) scrubbed.stack = scrub(error.stack);
  return scrubbed;
}

/** The error event's props; caller props come first so the plugin's own fields always win. */
export function errorProps(error: ErrorLike, breadcrumbs: string, level = 'error', extra?: Props): Props {
  const props: Props = { ...extra, message: cut(error.message, MAX_MESSAGE), type: error.name, level, breadcrumbs };
  if (error.stack) props.stack = cut(error.stack, MAX_STACK);
  else delete props.stack;
  return props;
}

export function messageProps(message: string, level: string, breadcrumbs: string): Props {
  return { message: cut(String(message), MAX_MESSAGE), type: 'Message', level, breadcrumbs };
}

export type Breadcrumbs = {
  add(kind: BreadcrumbKind, message: string): void;
  /** Rule 3: oldest first, at most 20 lines, oldest cut while the total is over 2048 characters. */
  text(): string;
};

export function createBreadcrumbs(now: () => number = Date.now): Breadcrumbs {
  let lines: string[] = [];
  return {
    add(kind, message) {
      lines.push(`${Math.floor(now())} ${kind} ${cut(scrub(String(message)), MAX_BREADCRUMB_MESSAGE)}`);
      if (lines.length > MAX_BREADCRUMBS) lines = lines.slice(-MAX_BREADCRUMBS);
    },
    text() {
      let kept = lines;
      while (kept.length > 0 && kept.join('\n').length > MAX_BREADCRUMBS_TOTAL) kept = kept.slice(1);
      return kept.join('\n');
    },
  };
}

function isError(value: unknown): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value); // e.g. an object with a throwing toString
  }
}

// The errors plugin (spec Events, rules 1–9): uncaught errors and unhandled rejections become `error`
// events through captureError, with a breadcrumb trail of navigations, clicks, failed fetches and
// other events. It wraps window.fetch and restores it on shutdown; it never scrubs captured text.
import type { Props } from '../event.ts';
import { createBreadcrumbs, errorProps, messageProps, scrubError, toErrorLike } from './error-props.ts';
import type { Breadcrumbs, ErrorLike } from './error-props.ts';
import { checkProps } from '../validate.ts';
import type { Client, Plugin } from './types.ts';

export type ErrorsPlugin = Plugin & {
  captureError(error: unknown, props?: Props): void;
  captureMessage(message: string, level?: string): void;
};

export function errors(): ErrorsPlugin {
  let client: Client | null = null;
  let breadcrumbs: Breadcrumbs = createBreadcrumbs();

  const plugin: ErrorsPlugin = {
    name: 'errors',
    setup(c) {
      client = c;
      breadcrumbs = createBreadcrumbs();
      const win = c.window;
      c.listen(win, 'error', (event) => onError(event as ErrorEvent));
      c.listen(win, 'unhandledrejection', (event) => onRejection(event as PromiseRejectionEvent));
      if (win.document)
        c.listen(win.document, 'click', (event) => breadcrumbs.add('click', tagName(event.target)), {
          capture: true,
          passive: true,
        });
      const stopEvents = c.onEvent((event) => {
        if (event.name === 'pageview') breadcrumbs.add('navigation', event.page?.path ?? '');
        else breadcrumbs.add('event', event.name);
      });
      const restoreFetch = wrapFetch(win, (line) => breadcrumbs.add('fetch', line));
      return () => {
        stopEvents();
        restoreFetch();
        client = null;
      };
    },
    captureError(error, props) {
      capture(toErrorLike(error), props);
    },
    captureMessage(message, level = 'info') {
      client?.send('error', { props: messageProps(message, level, breadcrumbs.text()) });
    },
  };
  return plugin;

  function capture(error: ErrorLike, props?: Props): void {
    if (!client) return;
    const checked = checkProps(props);
    // Keep the error even when the caller's props are bad: drop only the props.
    if (!checked.ok)
      client.diagnose({
        kind: 'validation',
        level: 'warn',
        message: `captureError() props dropped: ${checked.message}`,
      });
    const extra = checked.ok && props ? { ...props } : undefined;
    client.send('error', { props: errorProps(error, breadcrumbs.text(), 'error', extra) });
  }

  function onError(event: ErrorEvent): void {
    // Rule 2: no error object and no line number is the cross-origin "Script error." case.
    if (event.error == null && !event.lineno) return;
    const error =
      event.error != null ? toErrorLike(event.error) : { name: 'Error', message: String(event.message ?? '') };
    capture(scrubError(error));
  }

  function onRejection(event: PromiseRejectionEvent): void {
    capture(scrubError(toErrorLike(event.reason)));
  }
}

/** Rule 4 (fetch): a resolved response outside 200–299 adds "<status> <url>"; a rejection adds none. */
export function wrapFetch(win: Window, add: (line: string) => void): () => void {
  const original = win.fetch;
  if (typeof original !== 'function') return () => {};
  let active = true;
  const wrapped = function (input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const pending = original.call(win, input, init);
    if (active) {
      pending.then(
        (response) => {
          if (active && (response.status < 200 || response.status > 299))
            add(`${response.status} ${requestUrl(input)}`);
        },
        () => {},
      );
    }
    return pending;
  };
  win.fetch = wrapped as typeof fetch;
  return () => {
    active = false;
    // Restore only if nobody wrapped on top of us; otherwise stay as an inert pass-through.
    if (win.fetch === wrapped) win.fetch = original;
  };
}

function requestUrl(input: RequestInfo | URL): string {
  if (typeof input === 'string') return input;
  if (typeof input === 'object' && input !== null && 'url' in input) return String(input.url);
  return String(input);
}

function tagName(target: EventTarget | null): string {
  const name =
    (target as { tagName?: unknown; nodeName?: unknown } | null)?.tagName ??
    (target as { nodeName?: unknown } | null)?.nodeName;
  return typeof name === 'string' ? name.toLowerCase() : 'unknown';
}

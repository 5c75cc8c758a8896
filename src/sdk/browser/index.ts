// The browser SDK's ESM entry: one client per page behind init(), and functions that forward to it.
// Calls made before init() are kept (up to 100) and replayed once it runs.
import type { Props } from '../event.ts';
import { createClient } from './client.ts';
import { errorProps, toErrorLike, messageProps } from './error-props.ts';
import type { ErrorsPlugin } from './errors.ts';
import type { Client, InitOptions } from './types.ts';

export type { Client, Diagnostic, DiagnosticKind, EventFields, InitOptions, Plugin } from './types.ts';
export type { LoupeEvent, PageInfo, Props, SdkReport, Vitals } from '../event.ts';
export { errors, vitals, scrub } from './plugins.ts';
export type { ErrorsPlugin } from './plugins.ts';
export { createClient } from './client.ts';

let client: Client | null = null;
let early: Array<(c: Client) => void> = [];

export function init(options: InitOptions): Client {
  if (client && !client.closed) return client;
  client = createClient(options, window);
  const replay = early;
  early = [];
  for (const call of replay) call(client);
  return client;
}

export function track(name: string, props?: Props): void {
  run((c) => c.track(name, props));
}

export function pageview(): void {
  run((c) => c.pageview());
}

export function identify(userId: string | null, traits?: Props): void {
  run((c) => c.identify(userId, traits));
}

export function group(type: string, id: string | null): void {
  run((c) => c.group(type, id));
}

export function setExperiment(name: string, variant: string | null): void {
  run((c) => c.setExperiment(name, variant));
}

/** Does not scrub: scrub your own text first (spec Events, rule 6). */
export function captureError(error: unknown, props?: Props): void {
  run((c) => {
    const plugin = c.plugin<ErrorsPlugin>('errors');
    if (plugin) plugin.captureError(error, props);
    else c.send('error', { props: errorProps(toErrorLike(error), '', 'error', props) });
  });
}

export function captureMessage(message: string, level?: string): void {
  run((c) => {
    const plugin = c.plugin<ErrorsPlugin>('errors');
    if (plugin) plugin.captureMessage(message, level);
    else c.send('error', { props: messageProps(message, level ?? 'info', '') });
  });
}

export function flush(): Promise<void> {
  return client ? client.flush() : Promise.resolve();
}

/** Removes every listener and patch, sends what is queued by beacon; init() may be called again. */
export function shutdown(): void {
  client?.shutdown();
  client = null;
  early = [];
}

function run(call: (c: Client) => void): void {
  if (client && !client.closed) return call(client);
  if (early.length < 100) early.push(call);
}

// Starts the SDK from its own <script data-key=…> tag and exposes window.loupe; shared by the
// script-tag and widget builds. A page may call window.loupe early through a stub `{ q: [[method, ...args]] }`.
import {
  captureError,
  captureMessage,
  flush,
  group,
  identify,
  init,
  pageview,
  setExperiment,
  shutdown,
  track,
} from './index.ts';
import { errors, vitals } from './plugins.ts';
import { readScriptSettings } from './script-options.ts';
import type { Client, Plugin } from './types.ts';

export type LoupeGlobal = {
  track: typeof track;
  pageview: typeof pageview;
  identify: typeof identify;
  group: typeof group;
  setExperiment: typeof setExperiment;
  captureError: typeof captureError;
  captureMessage: typeof captureMessage;
  flush: typeof flush;
  shutdown: typeof shutdown;
};

type Stub = { q?: unknown[][] };

export function startFromScript(extraPlugins: (settings: { widget: boolean }) => Plugin[] = () => []): Client | null {
  const script = document.currentScript as HTMLScriptElement | null;
  const settings = readScriptSettings(script, location.origin);
  if (!settings) {
    console.warn('[loupe] script tag needs data-key="pk_…"');
    return null;
  }
  const plugins: Plugin[] = [];
  if (settings.errors) plugins.push(errors());
  if (settings.vitals) plugins.push(vitals());
  plugins.push(...extraPlugins(settings));
  const stub = (window as unknown as { loupe?: Stub }).loupe;
  const api: LoupeGlobal = {
    track,
    pageview,
    identify,
    group,
    setExperiment,
    captureError,
    captureMessage,
    flush,
    shutdown,
  };
  (window as unknown as { loupe: LoupeGlobal }).loupe = api;
  const client = init({ ...settings.options, plugins });
  for (const [method, ...args] of stub?.q ?? []) {
    const fn = api[method as keyof LoupeGlobal] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof fn === 'function') fn(...args);
  }
  return client;
}

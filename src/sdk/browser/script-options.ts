// Reads the script tag's data-* attributes into init options. Pure, so it is tested without a browser.
import type { InitOptions } from './types.ts';

export type ScriptSettings = { options: InitOptions; errors: boolean; vitals: boolean; widget: boolean };

type ScriptLike = { src?: string; getAttribute(name: string): string | null };

export function readScriptSettings(script: ScriptLike | null, pageOrigin: string): ScriptSettings | null {
  const key = script?.getAttribute('data-key');
  if (!script || !key) return null;
  const attr = (name: string) => script.getAttribute(`data-${name}`) ?? undefined;
  const options: InitOptions = { key, host: attr('host') ?? originOf(script.src, pageOrigin) };
  const proxyPath = attr('proxy-path');
  if (proxyPath !== undefined) options.proxyPath = proxyPath;
  const release = attr('release');
  if (release) options.release = release;
  const environment = attr('environment');
  if (environment === 'production' || environment === 'preview') options.environment = environment;
  if (attr('persistence') === 'memory') options.persistence = 'memory';
  if (flag(attr('respect-dnt'))) options.respectDnt = true;
  if (attr('auto-pageviews') === 'false') options.autoPageviews = false;
  return {
    options,
    errors: attr('errors') !== 'false',
    vitals: attr('vitals') !== 'false',
    widget: flag(attr('widget')),
  };
}

function flag(value: string | undefined): boolean {
  return value !== undefined && value !== 'false';
}

function originOf(src: string | undefined, fallback: string): string {
  try {
    return src ? new URL(src, fallback).origin : fallback;
  } catch {
    return fallback;
  }
}

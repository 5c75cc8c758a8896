// Client-side checks of what a caller passes to track(): the same limits the server enforces,
// so a bad call is reported where it is made. Returns a value; never throws.
import { RESERVED_NAMES } from './event.ts';

export type Invalid = { ok: false; field: string; message: string };
export type Checked = { ok: true } | Invalid;

export const MAX_PROPS = 25;
export const MAX_PROP_STRING = 500;

export function checkName(name: unknown, allowReserved = false): Checked {
  if (typeof name !== 'string' || name.length < 1 || name.length > 64) {
    return invalid('name', 'name must be a string of 1 to 64 characters');
  }
  if (!allowReserved && RESERVED_NAMES.includes(name)) {
    return invalid('name', `"${name}" is reserved for the SDK`);
  }
  return { ok: true };
}

export function checkProps(props: unknown, field = 'props'): Checked {
  if (props === undefined) return { ok: true };
  if (props === null || typeof props !== 'object' || Array.isArray(props)) {
    return invalid(field, `${field} must be an object with at most ${MAX_PROPS} properties`);
  }
  const keys = Object.keys(props);
  if (keys.length > MAX_PROPS) {
    return invalid(field, `${field} must be an object with at most ${MAX_PROPS} properties`);
  }
  for (const key of keys) {
    const value = (props as Record<string, unknown>)[key];
    if (value === null || typeof value === 'boolean') continue;
    if (typeof value === 'number' && Number.isFinite(value)) continue;
    if (typeof value === 'string' && value.length <= MAX_PROP_STRING) continue;
    return invalid(
      `${field}.${key}`,
      `${field}.${key} must be a string of at most ${MAX_PROP_STRING} characters, a finite number, a boolean or null`,
    );
  }
  return { ok: true };
}

export function checkEvent(name: unknown, props: unknown): Checked {
  const named = checkName(name);
  return named.ok ? checkProps(props) : named;
}

function invalid(field: string, message: string): Invalid {
  return { ok: false, field, message };
}

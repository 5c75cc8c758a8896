// A valibot schema compiled into one predicate of closures, for the ingest path's event-by-event check:
// `accepts(x)` is true only when valibot would accept x *and* answer x itself (no unknown key it would
// strip, no default it would fill), so the caller may keep x and skip valibot's walk and its copy of every
// object. False means "not sure": the caller asks valibot, which says what is wrong in its own words. The
// schema stays the one statement of the rules; this reads it, and refuses (throws) any schema or action it
// does not know, so a rule added later can never be skipped here without a failing start.
import type { GenericSchema } from 'valibot';

export type Accepts = (x: unknown) => boolean;

/** The parts of valibot's schema and action objects read here (its public objects, by their `type`). */
type Node = {
  kind: 'schema' | 'validation' | 'transformation' | 'metadata';
  type: string;
  entries?: Record<string, Node>;
  wrapped?: Node;
  default?: unknown;
  fallback?: unknown;
  options?: readonly unknown[];
  check?: (x: unknown) => boolean;
  requirement?: unknown;
  pipe?: readonly Node[];
};

export function compileCheck(schema: GenericSchema): Accepts {
  return compile(schema as unknown as Node, 'schema');
}

function compile(node: Node, at: string): Accepts {
  if (node.pipe) {
    // A piped schema is a copy of its first item with `pipe` added: that item is the schema itself.
    const [base, ...actions] = node.pipe;
    const checks = [compile(base!, at), ...actions.filter((a) => a.kind !== 'metadata').map((a) => action(a, at))];
    if (checks.length === 1) return checks[0]!;
    // A loop, not checks.every(…): that makes a closure on every call, for every piped field of every event.
    return (x) => {
      for (let i = 0; i < checks.length; i++) if (!checks[i]!(x)) return false;
      return true;
    };
  }
  if (node.fallback !== undefined)
    throw new Error(`compileCheck: ${at} has a fallback (valibot would answer something else)`);
  switch (node.type) {
    case 'string':
      return (x) => typeof x === 'string';
    case 'number':
      return (x) => typeof x === 'number' && !Number.isNaN(x);
    case 'boolean':
      return (x) => typeof x === 'boolean';
    case 'picklist': {
      const options = node.options!;
      return (x) => options.includes(x);
    }
    case 'custom':
      return node.check!;
    case 'optional':
    case 'nullable': {
      // With a default, valibot answers the default in place of undefined (null): not the input.
      const empty = node.type === 'optional' ? undefined : null;
      const wrapped = compile(node.wrapped!, at);
      return node.default === undefined ? (x) => x === empty || wrapped(x) : (x) => x !== empty && wrapped(x);
    }
    case 'object':
      return objectCheck(node.entries!, at);
    default:
      throw new Error(`compileCheck: ${at} is a ${node.type} schema, which it does not know`);
  }
}

/** A plain object (valibot also takes arrays, and answers a new object) whose every key is an entry (valibot
 *  would drop an unknown key) with a value that passes, and which has every entry that is not optional
 *  without a default. The input's keys are walked, not the entries: most entries are absent. */
function objectCheck(entries: Record<string, Node>, at: string): Accepts {
  const checks = new Map<string, { check: Accepts; required: boolean }>();
  let required = 0;
  for (const [key, entry] of Object.entries(entries)) {
    // valibot asks `key in input`, which an inherited key answers too: not a walk of own keys.
    if (key in Object.prototype) throw new Error(`compileCheck: ${at}.${key} is a name every object inherits`);
    const optional = entry.type === 'optional' && entry.default === undefined;
    const check = compile(entry, `${at}.${key}`);
    checks.set(key, { check, required: !optional });
    if (!optional) required++;
  }
  return (x) => {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
    const object = x as Record<string, unknown>;
    let seen = 0;
    for (const key in object) {
      const entry = checks.get(key);
      if (entry === undefined || !entry.check(object[key])) return false;
      if (entry.required) seen++;
    }
    return seen === required;
  };
}

function action(a: Node, at: string): Accepts {
  if (a.kind === 'schema') return compile(a, at);
  if (a.kind !== 'validation')
    throw new Error(`compileCheck: ${at} has a ${a.type} ${a.kind}, which changes the value`);
  const r = a.requirement;
  switch (a.type) {
    case 'min_length':
      return (x) => (x as string).length >= (r as number);
    case 'max_length':
      return (x) => (x as string).length <= (r as number);
    case 'regex':
    case 'iso_timestamp':
      return (x) => (r as RegExp).test(x as string);
    case 'finite':
      return (x) => Number.isFinite(x);
    case 'min_value':
      return (x) => (x as number) >= (r as number);
    case 'max_value':
      return (x) => (x as number) <= (r as number);
    case 'check':
      return r as Accepts;
    default:
      throw new Error(`compileCheck: ${at} has a ${a.type} action, which it does not know`);
  }
}

// The ingest payload at the boundary: the batch envelope and one schema per event, checked event by
// event so one bad event is rejected with its field while the rest of the batch is accepted.
import * as v from 'valibot';
import { compileCheck } from './compiled-check.ts';

export const MAX_BATCH = 500;
export const MAX_PROPS = 25;
export const RESERVED = ['pageview', 'error', 'speed', 'engagement'] as const;
/** Bounds on numbers, so that no sum of a day's (or a decade's) values can leave float8 (docs/limits.md). */
export const MAX_PROP_NUMBER = 1e15;
export const MAX_ENGAGEMENT_MS = 86_400_000;
/** Vitals past these are measurement errors, not pages: LCP, INP, FCP, TTFB in ms, CLS unitless. */
export const MAX_VITAL = { lcp: 600_000, inp: 600_000, fcp: 600_000, ttfb: 600_000, cls: 100 } as const;

const PROPS_MESSAGE = `props must be an object with at most ${MAX_PROPS} properties`;
const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));
const optText = (max: number) => v.optional(v.nullable(text(max)));
const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
const isPropValue = (x: unknown, max: number) =>
  x === null ||
  typeof x === 'boolean' ||
  (typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= MAX_PROP_NUMBER) ||
  (typeof x === 'string' && x.length <= max);

/** props: at most 25 keys of 1–64 characters; values string ≤ 500 (error stacks and breadcrumbs 4096: kindRules keeps
 *  that to error events), number within ±MAX_PROP_NUMBER, boolean or null. */
const props = v.pipe(
  v.custom<Record<string, string | number | boolean | null>>(
    (x) => isPlainObject(x) && Object.keys(x).length <= MAX_PROPS,
    PROPS_MESSAGE,
  ),
  v.check((o) => Object.keys(o).every((k) => k.length >= 1 && k.length <= 64), 'props keys must be 1–64 characters'),
  v.check(
    (o) => Object.entries(o).every(([k, x]) => isPropValue(x, k === 'stack' || k === 'breadcrumbs' ? 4096 : 500)),
    'props values must be strings of at most 500 characters, numbers within ±1e15, booleans or null',
  ),
);

const stringMap = (maxKeys: number, what: string) =>
  v.custom<Record<string, string>>(
    (x) =>
      isPlainObject(x) &&
      Object.keys(x).length <= maxKeys &&
      Object.entries(x).every(([k, s]) => k.length <= 64 && typeof s === 'string' && s.length >= 1 && s.length <= 128),
    `${what} must be an object of at most ${maxKeys} string values (1–128 characters)`,
  );

const vital = (max: number) =>
  v.optional(v.nullable(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(max, `must be 0 to ${max}`))));

export const EventSchema = v.object({
  id: v.optional(
    v.pipe(v.string(), v.minLength(1, 'must be 1–64 characters'), v.maxLength(64, 'must be 1–64 characters')),
  ),
  name: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must be 1–64 characters'),
    v.maxLength(64, 'must be 1–64 characters'),
    v.regex(/^[^\p{C}]+$/u, 'must not contain control characters'),
  ),
  // A day its month does not have passes here; eventTime reads it as NaN, and tsProblem rejects it.
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time with a time zone'))),
  visitor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  session: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  page: v.optional(
    v.object({
      url: optText(2048),
      path: optText(1024),
      route: optText(256),
      title: optText(512),
      referrer: optText(2048),
    }),
  ),
  props: v.optional(props),
  user: v.optional(v.object({ id: v.optional(v.nullable(text(128))), traits: v.optional(props) })),
  groups: v.optional(stringMap(10, 'groups')),
  experiments: v.optional(stringMap(20, 'experiments')),
  release: optText(64),
  environment: v.optional(v.picklist(['production', 'preview'], 'must be production or preview')),
  device: v.optional(
    v.object({ screen: optText(32), viewport: optText(32), language: optText(35), connection: optText(32) }),
  ),
  signals: v.optional(
    v.object({
      webdriver: v.optional(v.nullable(v.boolean())),
      headless: v.optional(v.nullable(v.boolean())),
      pointerEvents: v.optional(v.nullable(v.boolean())),
    }),
  ),
  vitals: v.optional(
    v.object({
      lcp: vital(MAX_VITAL.lcp),
      inp: vital(MAX_VITAL.inp),
      cls: vital(MAX_VITAL.cls),
      fcp: vital(MAX_VITAL.fcp),
      ttfb: vital(MAX_VITAL.ttfb),
      element: optText(512),
    }),
  ),
  context: v.optional(v.object({ ip: optText(64), userAgent: optText(1024) })),
});

export type IngestEvent = v.InferOutput<typeof EventSchema>;

export const ReportSchema = v.object({
  level: v.picklist(['info', 'warn', 'error']),
  message: text(500),
  data: v.optional(v.custom<Record<string, unknown>>(isPlainObject, 'data must be an object')),
});
export type SdkReport = v.InferOutput<typeof ReportSchema>;

export type Rejection = {
  index: number;
  code: 'LOUPE_INGEST_REJECTED';
  reason: 'VALIDATION_FAILED';
  field: string;
  message: string;
  event: string | null;
};

/** EventSchema's rules as one predicate: nearly every event passes it, and is then taken as it came. */
const acceptsEvent = compileCheck(EventSchema);

/** Checks one event; a rejection names the first offending field. `escapes`: whether its body held a `\u`
 *  escape (IncomingRequest.bodyEscapes). Without one no string of it can hold text PostgreSQL cannot store,
 *  and the walk over its strings for such text is skipped. */
export function validateEvent(
  raw: unknown,
  index: number,
  escapes = true,
): { ok: true; event: IngestEvent } | { ok: false; rejection: Rejection } {
  let event: IngestEvent;
  if (acceptsEvent(raw)) {
    event = raw as IngestEvent;
  } else {
    const result = v.safeParse(EventSchema, raw);
    if (!result.success) return { ok: false, rejection: schemaRejection(index, raw, result.issues[0]) };
    event = result.output;
  }
  const unstorable = escapes ? unstorableText(event, '') : null;
  if (unstorable !== null)
    return {
      ok: false,
      rejection: rejection(index, raw, unstorable || 'event', `${unstorable || 'event'} ${UNSTORABLE}`),
    };
  const extra = kindRules(event);
  return extra ? { ok: false, rejection: rejection(index, raw, extra.field, extra.message) } : { ok: true, event };
}

/** The first schema issue as a rejection, in the field's words. */
function schemaRejection(index: number, raw: unknown, issue: v.BaseIssue<unknown>): Rejection {
  const field = propsField(raw, v.getDotPath(issue) ?? 'event');
  // A required key that is absent (only name, at the top) is reported by the object, in its own words.
  const said = issue.kind === 'schema' && issue.received === 'undefined' ? 'is required' : issue.message;
  const message =
    field === 'props' || field.startsWith('props.')
      ? PROPS_MESSAGE + (field === 'props' ? '' : ` (${said})`)
      : `${field} ${said}`;
  return rejection(index, raw, field, message);
}

/** Names the offending prop (`props.<key>`) when the object itself is fine but one value is not. */
function propsField(raw: unknown, field: string): string {
  if (
    field !== 'props' ||
    !isPlainObject(raw) ||
    !isPlainObject(raw.props) ||
    Object.keys(raw.props).length > MAX_PROPS
  )
    return field;
  const bad = Object.entries(raw.props).find(
    ([k, x]) => k.length < 1 || k.length > 64 || !isPropValue(x, k === 'stack' || k === 'breadcrumbs' ? 4096 : 500),
  );
  return bad ? `props.${bad[0]}` : field;
}

/** Rules of the reserved kinds: a speed event carries vitals; an engagement reports timeMs and scrollDepth;
 *  only an error's stack and breadcrumbs may be longer than 500 characters. */
function kindRules(e: IngestEvent): { field: string; message: string } | null {
  if (e.name !== 'error' && e.props) {
    for (const key of ['stack', 'breadcrumbs'] as const) {
      const x = e.props[key];
      if (typeof x === 'string' && x.length > 500) {
        return {
          field: `props.${key}`,
          message: `${PROPS_MESSAGE} (values of at most 500 characters; ${key} up to 4096 only on an error event)`,
        };
      }
    }
  }
  if (
    e.name === 'speed' &&
    (!e.vitals || ['lcp', 'inp', 'cls', 'fcp', 'ttfb'].every((k) => e.vitals?.[k as 'lcp'] == null))
  ) {
    return { field: 'vitals', message: 'a speed event needs vitals with at least one of lcp, inp, cls, fcp, ttfb' };
  }
  if (e.name === 'engagement') {
    const ms = e.props?.timeMs;
    const depth = e.props?.scrollDepth;
    if (typeof ms !== 'number' || ms < 0 || ms > MAX_ENGAGEMENT_MS)
      return {
        field: 'props.timeMs',
        message: `an engagement event needs props.timeMs from 0 to ${MAX_ENGAGEMENT_MS} (milliseconds, one day)`,
      };
    if (depth !== undefined && depth !== null && (typeof depth !== 'number' || depth < 0 || depth > 100)) {
      return { field: 'props.scrollDepth', message: 'props.scrollDepth must be a number from 0 to 100' };
    }
  }
  return null;
}

/** A rejection names what the client sent (its event name, a prop key): those go to the log stream, so
 *  whatever PostgreSQL could not store in them is replaced by U+FFFD. */
export const rejection = (index: number, raw: unknown, field: string, message: string): Rejection => ({
  index,
  code: 'LOUPE_INGEST_REJECTED',
  reason: 'VALIDATION_FAILED',
  field: storable(field),
  message: storable(message),
  event: isPlainObject(raw) && typeof raw.name === 'string' ? storable(raw.name.slice(0, 64)) : null,
});

const storable = (text: string) => text.replaceAll('\u0000', '\uFFFD').toWellFormed();

/** Splits a body into its events and reports: `{events, reports?}` or one bare event. */
export function readEnvelope(
  body: unknown,
): { ok: true; events: unknown[]; reports: unknown[] } | { ok: false; field: string; message: string } {
  if (!isPlainObject(body)) return { ok: false, field: 'body', message: 'send {"events": [...]} or one event object' };
  if (!('events' in body)) return { ok: true, events: [body], reports: [] };
  if (!Array.isArray(body.events)) return { ok: false, field: 'body.events', message: 'events must be an array' };
  if (body.events.length > MAX_BATCH)
    return {
      ok: false,
      field: 'body.events',
      message: `at most ${MAX_BATCH} events a batch (got ${body.events.length})`,
    };
  const reports = body.reports === undefined ? [] : body.reports;
  if (!Array.isArray(reports) || reports.length > 50)
    return { ok: false, field: 'body.reports', message: 'reports must be an array of at most 50' };
  return { ok: true, events: body.events, reports };
}

const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates (PostgreSQL cannot store them)';

/** The path of the first string (value or key, at any depth) PostgreSQL could not store as text or jsonb:
 *  one with U+0000 or an unpaired UTF-16 surrogate. Null when there is none. Such an event is rejected on
 *  its own here; stored, it would fail the whole flush (or, in a visitor's traits, every checkpoint). */
export function unstorableText(value: unknown, path: string): string | null {
  if (typeof value === 'string') return isStorable(value) ? null : path;
  if (typeof value !== 'object' || value === null) return null;
  // Every event passes through here: no path is built and no entry array made unless one is needed.
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const x = object[key];
    if (isStorable(key) && (typeof x === 'string' ? isStorable(x) : typeof x !== 'object' || x === null)) continue;
    const at = path ? `${path}.${key}` : key;
    if (!isStorable(key)) return at;
    const bad = unstorableText(x, at);
    if (bad !== null) return bad;
  }
  return null;
}

/** Whether PostgreSQL can store the text (no U+0000, no unpaired surrogate). */
export const isStorable = (text: string) => !text.includes('\u0000') && text.isWellFormed();

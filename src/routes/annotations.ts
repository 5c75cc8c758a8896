// Annotations: markers on a project's timeline (a point, or a span with endDate). Anyone who may read the
// project's numbers lists them; admins create, change and delete them. Storage is src/db/annotations.ts.
import * as v from 'valibot';
import { notFound, validationFailed } from '../errors.ts';
import {
  annotationKinds,
  createAnnotation,
  deleteAnnotation,
  listAnnotations,
  updateAnnotation,
  type AnnotationRow,
} from '../db/annotations.ts';
import { route } from './route.ts';
import { atLeastOneField, dateTime, iso } from './schemas.ts';
import { annotationResponse, annotationsResponse, deletedResponse } from './responses.ts';

const periods = ['24h', '7d', '30d', '90d', '12mo', 'all'] as const;
type Period = (typeof periods)[number];

const Cursor = v.object({ date: dateTime, id: v.pipe(v.string(), v.regex(/^ann_[A-Za-z0-9]{1,64}$/)) });
type Cursor = v.InferOutput<typeof Cursor>;

const cursorParam = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const decoded = decodeCursor(dataset.value);
    if (decoded) return decoded;
    addIssue({ message: 'must be the nextCursor of a previous page' });
    return NEVER;
  }),
);

const ListQuery = v.pipe(
  v.object({
    from: v.optional(dateTime),
    to: v.optional(dateTime),
    period: v.optional(v.picklist(periods, 'must be 24h, 7d, 30d, 90d, 12mo or all')),
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,3}$/, 'must be an integer from 1 to 100'),
        v.transform(Number),
        v.minValue(1, 'must be an integer from 1 to 100'),
        v.maxValue(100, 'must be an integer from 1 to 100'),
      ),
    ),
    cursor: v.optional(cursorParam),
  }),
  v.forward(
    v.partialCheck([['from'], ['to']], (q) => q.to === undefined || q.from !== undefined, 'send from together with to'),
    ['from'],
  ),
  v.forward(
    v.partialCheck([['from'], ['to']], (q) => q.from === undefined || q.to !== undefined, 'send to together with from'),
    ['to'],
  ),
  v.forward(
    v.partialCheck([['from'], ['to']], (q) => !q.from || !q.to || q.from < q.to, 'must be after from'),
    ['to'],
  ),
);

const title = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200, 'must be at most 200 characters'),
);
const kind = v.picklist(annotationKinds, 'must be release, incident, campaign, change or note');
const note = v.nullable(v.pipe(v.string(), v.maxLength(2000, 'must be at most 2000 characters')));
const url = v.nullable(
  v.pipe(
    v.string(),
    v.maxLength(2048, 'must be at most 2048 characters'),
    v.check(isHttpUrl, 'must be an http or https URL'),
  ),
);

/** Both sent: the end must not be before the start (PATCH checks a lone one against the stored value). */
const endAfterStart = (b: { date?: Date; endDate?: Date | null }) => !b.date || !b.endDate || b.endDate >= b.date;

const CreateAnnotation = v.pipe(
  v.strictObject({
    title,
    date: dateTime,
    endDate: v.optional(v.nullable(dateTime)),
    kind,
    note: v.optional(note),
    url: v.optional(url),
  }),
  v.forward(
    v.check((b) => endAfterStart(b), 'must not be before date'),
    ['endDate'],
  ),
);

const PatchAnnotation = v.pipe(
  v.strictObject({
    title: v.optional(title),
    date: v.optional(dateTime),
    endDate: v.optional(v.nullable(dateTime)),
    kind: v.optional(kind),
    note: v.optional(note),
    url: v.optional(url),
  }),
  v.check(atLeastOneField, 'Send at least one of title, date, endDate, kind, note, url.'),
  v.forward(
    v.check((b) => endAfterStart(b), 'must not be before date'),
    ['endDate'],
  ),
);

export const annotationRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/annotations',
    response: annotationsResponse,
    access: 'project',
    tag: 'Annotations',
    summary:
      'Annotations with any part in the range (date < to and end ≥ from), ordered by date then id; paged with cursor.',
    query: ListQuery,
    async handler({ query, project, services }) {
      const range =
        query.from && query.to ? { from: query.from, to: query.to } : periodRange(query.period ?? '30d', new Date());
      const limit = query.limit ?? 20;
      const rows = await listAnnotations(services.sql, project.id, {
        ...range,
        after: query.cursor ?? null,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(shape),
        nextCursor: rows.length > limit && last ? encodeCursor({ date: last.date, id: last.id }) : null,
        range: { from: iso(range.from), to: iso(range.to) },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/v2/projects/{project}/annotations',
    response: annotationResponse,
    access: 'admin',
    tag: 'Annotations',
    status: 201,
    summary:
      'Create an annotation. kind: release, incident, campaign, change or note; endDate (optional) not before date.',
    body: CreateAnnotation,
    async handler({ body, project, services }) {
      const row = await createAnnotation(services.sql, project.id, {
        title: body.title,
        date: body.date,
        endDate: body.endDate ?? null,
        kind: body.kind,
        note: body.note ?? null,
        url: body.url ?? null,
      });
      return { data: shape(row) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v2/projects/{project}/annotations/{annotation}',
    response: annotationResponse,
    access: 'admin',
    tag: 'Annotations',
    summary: 'Change an annotation; only the fields sent change, and null clears endDate, note or url.',
    body: PatchAnnotation,
    async handler({ body, params, project, services }) {
      const outcome = await updateAnnotation(services.sql, project.id, params.annotation!, body);
      if (outcome.ok) return { data: shape(outcome.row) };
      if (outcome.reason === 'not-found') throw notFound(`Annotation ${params.annotation} not found.`);
      // Only one of the two was sent (the schema checks both together): name the one sent.
      const field = body.endDate !== undefined ? 'body.endDate' : 'body.date';
      throw validationFailed([{ field, message: 'endDate must not be before date' }]);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v2/projects/{project}/annotations/{annotation}',
    response: deletedResponse,
    access: 'admin',
    tag: 'Annotations',
    summary: 'Delete an annotation.',
    async handler({ params, project, services }) {
      if (!(await deleteAnnotation(services.sql, project.id, params.annotation!))) {
        throw notFound(`Annotation ${params.annotation} not found.`);
      }
      return { data: { id: params.annotation, deleted: true } };
    },
  }),
];

const shape = (a: AnnotationRow) => ({
  id: a.id,
  project: a.project_id,
  title: a.title,
  date: iso(a.date),
  endDate: iso(a.end_date),
  kind: a.kind,
  note: a.note,
  url: a.url,
  createdAt: iso(a.created_at),
  updatedAt: iso(a.updated_at),
});

/** The shared period rule: ranges end at the start of today (UTC), 24h at the start of the current hour. */
export function periodRange(period: Period, now: Date): { from: Date | null; to: Date | null } {
  if (period === 'all') return { from: null, to: null };
  if (period === '24h') {
    const to = new Date(now);
    to.setUTCMinutes(0, 0, 0);
    return { from: new Date(to.getTime() - 24 * 3_600_000), to };
  }
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(to);
  if (period === '12mo') from.setUTCFullYear(from.getUTCFullYear() - 1);
  else from.setUTCDate(from.getUTCDate() - { '7d': 7, '30d': 30, '90d': 90 }[period]);
  return { from, to };
}

const encodeCursor = (c: Cursor) =>
  Buffer.from(JSON.stringify({ date: c.date.toISOString(), id: c.id })).toString('base64url');

function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(Cursor, json);
  return parsed.success ? parsed.output : undefined;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && /^https?:\/\//i.test(s);
  } catch {
    return false;
  }
}

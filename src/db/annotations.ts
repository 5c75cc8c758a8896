// Annotation records: one page by range, create, change the fields sent, delete. Every statement is
// confined to one project; validation happened at the HTTP boundary.
import type { Sql } from 'postgres';
import { newId } from '../secrets.ts';
import { query } from './queries.ts';

export const annotationKinds = ['release', 'incident', 'campaign', 'change', 'note'] as const;
export type AnnotationKind = (typeof annotationKinds)[number];

export type AnnotationRow = {
  project_id: string;
  id: string;
  title: string;
  date: Date;
  end_date: Date | null;
  kind: AnnotationKind;
  note: string | null;
  url: string | null;
  created_at: Date;
  updated_at: Date;
};

export type NewAnnotation = {
  title: string;
  date: Date;
  endDate: Date | null;
  kind: AnnotationKind;
  note: string | null;
  url: string | null;
};

/** A change: absent fields keep their value; null clears endDate, note or url. */
export type AnnotationChange = {
  title?: string;
  date?: Date;
  endDate?: Date | null;
  kind?: AnnotationKind;
  note?: string | null;
  url?: string | null;
};

/** Bounds are null when open; `after` is the (date, id) of the previous page's last row. */
export type AnnotationPage = {
  from: Date | null;
  to: Date | null;
  after: { date: Date; id: string } | null;
  limit: number;
};

export type UpdateOutcome = { ok: true; row: AnnotationRow } | { ok: false; reason: 'not-found' | 'end-before-start' };

export const listAnnotations = (sql: Sql, projectId: string, p: AnnotationPage) =>
  query<AnnotationRow>(sql, 'list_annotations', [
    projectId,
    p.from,
    p.to,
    p.after?.date ?? null,
    p.after?.id ?? null,
    p.limit,
  ]);

export async function createAnnotation(sql: Sql, projectId: string, a: NewAnnotation): Promise<AnnotationRow> {
  const [row] = await query<AnnotationRow>(sql, 'insert_annotation', [
    projectId,
    newId('ann'),
    a.title,
    a.date,
    a.endDate,
    a.kind,
    a.note,
    a.url,
  ]);
  return row!;
}

export async function updateAnnotation(
  sql: Sql,
  projectId: string,
  id: string,
  c: AnnotationChange,
): Promise<UpdateOutcome> {
  const [result] = await query<UpdateResult>(sql, 'update_annotation', [
    projectId,
    id,
    c.title ?? null,
    c.date ?? null,
    c.endDate !== undefined,
    c.endDate ?? null,
    c.kind ?? null,
    c.note !== undefined,
    c.note ?? null,
    c.url !== undefined,
    c.url ?? null,
  ]);
  if (!result) throw new Error('update_annotation returned no row');
  const { found, ...row } = result;
  if (row.id !== null) return { ok: true, row: row as AnnotationRow };
  return { ok: false, reason: found ? 'end-before-start' : 'not-found' };
}

/** The statement always answers one row: whether the annotation exists, and its new values when it changed. */
type UpdateResult = { found: boolean } & { [K in keyof AnnotationRow]: AnnotationRow[K] | null };

export async function deleteAnnotation(sql: Sql, projectId: string, id: string): Promise<boolean> {
  return (await query<{ id: string }>(sql, 'delete_annotation', [projectId, id])).length > 0;
}

// The time series' annotations: listed under the chart, and for admins added (a click on the chart picks
// the date), edited and deleted in place (POST, PATCH, DELETE …/annotations). The API decides who may;
// its refusal and a field's validation message are shown as they come.
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { ApiError, send } from '../../api.ts';
import { canTryAdmin } from '../../components/admin.ts';

export type Annotation = {
  id: string;
  title: string;
  date: string;
  endDate: string | null;
  kind: string;
  note: string | null;
  url: string | null;
};

const KINDS = ['release', 'incident', 'campaign', 'change', 'note'] as const;
/** A date-time as the form's UTC field shows it (YYYY-MM-DDTHH:mm). */
export const toField = (iso: string) => iso.slice(0, 16);
const fromField = (v: string) => new Date(`${v}:00Z`).toISOString();
const shown = (iso: string) => `${toField(iso).replace('T', ' ')} UTC`;

export type Editing = { id: string | null; date: string } | null;

export function Annotations(props: {
  project: string;
  list: Annotation[];
  editing: Editing;
  onEdit: (e: Editing) => void;
  onChanged: () => void;
}) {
  const admin = canTryAdmin();
  const confirm = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const base = `/v2/projects/${encodeURIComponent(props.project)}/annotations`;
  async function remove(a: Annotation) {
    try {
      await send('DELETE', `${base}/${encodeURIComponent(a.id)}`);
      error.value = null;
      props.onChanged();
    } catch (err) {
      error.value = `Deleting "${a.title}" was refused: ${(err as Error).message}`;
    } finally {
      confirm.value = null;
    }
  }
  const editingOne = props.editing?.id ? props.list.find((a) => a.id === props.editing!.id) : undefined;
  return (
    <div class="annotations-block">
      {props.list.length ? (
        <ul class="annotations" aria-label="Annotations">
          {props.list.map((a) => (
            <li key={a.id} data-annotation={a.id}>
              <span class={`kind ${a.kind}`}>{a.kind}</span> {a.title} <time dateTime={a.date}>{shown(a.date)}</time>
              {a.endDate ? <> – {shown(a.endDate)}</> : null}
              {admin ? (
                <span class="annotation-actions">
                  <button onClick={() => props.onEdit({ id: a.id, date: a.date })} aria-label={`Edit ${a.title}`}>
                    Edit
                  </button>
                  {confirm.value === a.id ? (
                    <button class="danger" onClick={() => void remove(a)}>
                      Confirm delete
                    </button>
                  ) : (
                    <button onClick={() => (confirm.value = a.id)} aria-label={`Delete ${a.title}`}>
                      Delete
                    </button>
                  )}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {error.value ? (
        <p class="note error" role="alert">
          {error.value}
        </p>
      ) : null}
      {admin && !props.editing ? (
        <button class="add-annotation" onClick={() => props.onEdit({ id: null, date: new Date().toISOString() })}>
          Add annotation
        </button>
      ) : null}
      {admin && props.editing ? (
        <AnnotationForm
          key={`${props.editing.id ?? 'new'}|${props.editing.date}`}
          base={base}
          start={editingOne ?? { date: props.editing.date }}
          id={props.editing.id}
          onDone={(changed) => {
            props.onEdit(null);
            if (changed) props.onChanged();
          }}
        />
      ) : null}
    </div>
  );
}

function AnnotationForm(props: {
  base: string;
  id: string | null;
  start: Partial<Annotation> & { date: string };
  onDone: (changed: boolean) => void;
}) {
  const s = props.start;
  const f = {
    title: useSignal(s.title ?? ''),
    kind: useSignal(s.kind ?? 'release'),
    date: useSignal(toField(s.date)),
    endDate: useSignal(s.endDate ? toField(s.endDate) : ''),
    note: useSignal(s.note ?? ''),
    url: useSignal(s.url ?? ''),
  };
  const problem = useSignal<string | null>(null);
  const busy = useSignal(false);
  const id = useId();
  async function submit(e: Event) {
    e.preventDefault();
    busy.value = true;
    const body = {
      title: f.title.value.trim(),
      kind: f.kind.value,
      date: fromField(f.date.value),
      endDate: f.endDate.value ? fromField(f.endDate.value) : null,
      note: f.note.value.trim() || null,
      url: f.url.value.trim() || null,
    };
    try {
      if (props.id) await send('PATCH', `${props.base}/${encodeURIComponent(props.id)}`, body);
      else await send('POST', props.base, body);
      props.onDone(true);
    } catch (err) {
      const fields =
        err instanceof ApiError ? err.details.map((d) => `${d.field.replace(/^body\./, '')} ${d.message}`) : [];
      problem.value = `${(err as Error).message}${fields.length ? ` (${fields.join('; ')})` : ''}`;
    } finally {
      busy.value = false;
    }
  }
  const field = (
    name: keyof typeof f,
    label: string,
    type: 'text' | 'url' | 'datetime-local' = 'text',
    required = false,
  ) => (
    <label for={`${id}-${name}`}>
      {label}
      <input
        id={`${id}-${name}`}
        name={name}
        {...({ type } as { type: 'text' })}
        required={required}
        value={f[name].value}
        onInput={(e) => (f[name].value = (e.currentTarget as HTMLInputElement).value)}
      />
    </label>
  );
  return (
    <form
      class="annotation-form row-form"
      onSubmit={submit}
      aria-label={props.id ? 'Edit annotation' : 'New annotation'}
    >
      {field('title', 'Title', 'text', true)}
      <label for={`${id}-kind`}>
        Kind
        <select
          id={`${id}-kind`}
          value={f.kind.value}
          onChange={(e) => (f.kind.value = (e.currentTarget as HTMLSelectElement).value)}
        >
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      {field('date', 'Date (UTC)', 'datetime-local', true)}
      {field('endDate', 'End (UTC, optional)', 'datetime-local')}
      {field('note', 'Note')}
      {field('url', 'Link', 'url')}
      <button class="primary" type="submit" disabled={busy.value}>
        {props.id ? 'Save annotation' : 'Add annotation'}
      </button>
      <button type="button" onClick={() => props.onDone(false)}>
        Cancel
      </button>
      {problem.value ? (
        <p class="note error" role="alert">
          {problem.value}
        </p>
      ) : null}
    </form>
  );
}

// The project's settings (PATCH /v2/projects/{p}): name, visibility, public visitor data, allowed origins
// (one a line; none allows every origin), retention in days, widget reports, SQL and the daily salt.
// Only the fields that changed are sent; the API's answer, read again, is what the form then shows.
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { ApiError, send } from '../../api.ts';
import { loadProjects } from '../../projects-store.ts';
import { projectApi, type ProjectInfo } from '../../project-info.ts';
import { Refusal } from './refusal.tsx';

type Form = {
  name: string;
  visibility: string;
  publicVisitorData: boolean;
  allowedOrigins: string;
  retentionDays: string;
  widgetReports: boolean;
  sqlEnabled: boolean;
  dailySalt: boolean;
};

const formOf = (p: ProjectInfo): Form => ({
  name: p.name,
  visibility: p.visibility,
  publicVisitorData: p.publicVisitorData,
  allowedOrigins: (p.allowedOrigins ?? []).join('\n'),
  retentionDays: String(p.retentionDays ?? ''),
  widgetReports: p.widgetReports ?? false,
  sqlEnabled: p.sqlEnabled ?? false,
  dailySalt: p.dailySalt ?? false,
});

/** The members of a PATCH body: the fields that differ from the stored settings, in the API's types. */
export function changes(before: Form, after: Form): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (after.name.trim() !== before.name) body.name = after.name.trim();
  if (after.visibility !== before.visibility) body.visibility = after.visibility;
  for (const k of ['publicVisitorData', 'widgetReports', 'sqlEnabled', 'dailySalt'] as const)
    if (after[k] !== before[k]) body[k] = after[k];
  const origins = after.allowedOrigins
    .split(/\s+/)
    .map((o) => o.trim())
    .filter(Boolean);
  if (origins.join('\n') !== before.allowedOrigins) body.allowedOrigins = origins;
  if (after.retentionDays.trim() !== before.retentionDays) body.retentionDays = Number(after.retentionDays);
  return body;
}

export function ProjectForm({ info, onSaved }: { info: ProjectInfo; onSaved: () => void }) {
  const stored = formOf(info);
  const form = useSignal<Form>(stored);
  const status = useSignal<string | null>(null);
  const error = useSignal<Error | null>(null);
  const id = useId();
  const set = (patch: Partial<Form>) => (form.value = { ...form.value, ...patch });
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const tick = (e: Event) => (e.currentTarget as HTMLInputElement).checked;
  async function save(e: Event) {
    e.preventDefault();
    const body = changes(stored, form.value);
    if (Object.keys(body).length === 0) return void (status.value = 'Nothing changed.');
    try {
      await send('PATCH', projectApi(info.id), body);
      error.value = null;
      status.value = `Saved: ${Object.keys(body).join(', ')}.`;
      onSaved();
      void loadProjects();
    } catch (err) {
      status.value = null;
      error.value = err instanceof ApiError ? err : new Error(String(err));
    }
  }
  return (
    <section class="card settings-card" aria-labelledby={`${id}-t`}>
      <h2 id={`${id}-t`}>Project</h2>
      <form class="settings-form" onSubmit={save}>
        <label>
          Name
          <input required maxLength={200} value={form.value.name} onInput={(e) => set({ name: text(e) })} />
        </label>
        <label>
          Visibility
          <select value={form.value.visibility} onChange={(e) => set({ visibility: text(e) })}>
            <option value="private">Private</option>
            <option value="public">Public (anyone can read its numbers)</option>
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={form.value.publicVisitorData}
            onChange={(e) => set({ publicVisitorData: tick(e) })}
          />
          Public visitor data (when public, anyone can read visitors and sessions)
        </label>
        <label>
          Allowed origins (one a line; none allows every origin)
          <textarea
            rows={3}
            value={form.value.allowedOrigins}
            placeholder="https://example.com"
            onInput={(e) => set({ allowedOrigins: text(e) })}
          />
        </label>
        <label>
          Retention (days, 1 to 3650)
          <input
            type="number"
            min={1}
            max={3650}
            required
            value={form.value.retentionDays}
            onInput={(e) => set({ retentionDays: text(e) })}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={form.value.widgetReports} onChange={(e) => set({ widgetReports: tick(e) })} />
          Widget reports (the SDK's own reports in the log stream)
        </label>
        <label class="check">
          <input type="checkbox" checked={form.value.sqlEnabled} onChange={(e) => set({ sqlEnabled: tick(e) })} />
          SQL (owners, admins and analysts may query this project)
        </label>
        <label class="check">
          <input type="checkbox" checked={form.value.dailySalt} onChange={(e) => set({ dailySalt: tick(e) })} />
          Daily salt (visitors without an SDK id cannot be followed across days)
        </label>
        <div>
          <button class="primary" type="submit">
            Save settings
          </button>
        </div>
      </form>
      {status.value ? <p role="status">{status.value}</p> : null}
      {error.value ? <Refusal error={error.value} /> : null}
    </section>
  );
}

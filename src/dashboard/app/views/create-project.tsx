// Creating a project (POST /v2/projects): the form, then the new project's secret key, shown this once,
// and its snippet. Offered to anyone signed in; the API refuses those who may not, with its message.
import { useSignal } from '@preact/signals';
import { ApiError, send } from '../api.ts';
import { ErrorNote } from '../components/notes.tsx';
import { Snippet } from '../components/snippet.tsx';
import { loadProjects, type Project } from '../projects-store.ts';
import { onLinkClick, projectPath } from '../router.ts';

type Created = Project & { publicKey: string; secretKey: string };

export function CreateProject() {
  const name = useSignal('');
  const visibility = useSignal('private');
  const error = useSignal<Error | null>(null);
  const created = useSignal<Created | null>(null);
  async function submit(e: Event) {
    e.preventDefault();
    try {
      const { data } = await send<{ data: Created }>('POST', '/v2/projects', {
        name: name.value,
        visibility: visibility.value,
      });
      created.value = data;
      error.value = null;
      name.value = '';
      await loadProjects();
    } catch (err) {
      error.value = err instanceof ApiError ? err : new Error(String(err));
    }
  }
  return (
    <section class="card create" aria-labelledby="create-title">
      <h2 id="create-title">New project</h2>
      <form onSubmit={submit} class="row-form">
        <label>
          Name
          <input
            required
            maxLength={200}
            value={name.value}
            onInput={(e) => (name.value = (e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <label>
          Visibility
          <select
            value={visibility.value}
            onChange={(e) => (visibility.value = (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="private">Private</option>
            <option value="public">Public (anyone can read its numbers)</option>
          </select>
        </label>
        <button class="primary" type="submit">
          Create project
        </button>
      </form>
      {error.value ? <ErrorNote error={error.value} /> : null}
      {created.value ? (
        <div class="created" role="status">
          <p>
            Created{' '}
            <a href={projectPath(created.value.id)} onClick={onLinkClick}>
              {created.value.name}
            </a>
            . Its secret key is shown this once: <code>{created.value.secretKey}</code>
          </p>
          <Snippet publicKey={created.value.publicKey} />
        </div>
      ) : null}
    </section>
  );
}

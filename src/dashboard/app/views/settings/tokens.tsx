// API tokens (organisation-wide: GET, POST /v2/tokens, DELETE /v2/tokens/{token}): the list (never the
// values), a form that creates one for this project or for all and shows its value this once, and revoke.
// A caller the API does not let manage tokens sees its refusal here.
import { useSignal } from '@preact/signals';
import { get, send } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Loading } from '../../components/notes.tsx';
import { when } from '../people/when.ts';
import { ProjectsPicker } from './projects-picker.tsx';
import { Refusal } from './refusal.tsx';

type Token = {
  id: string;
  name: string;
  scope: string;
  projectIds: string[] | null;
  hint: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
};

export function Tokens({ project }: { project: string }) {
  const list = useLoad(`${authKey.value}|tokens`, (signal) =>
    get<{ data: Token[] }>('/v2/tokens', undefined, signal).then((r) => r.data),
  );
  const error = useSignal<Error | null>(null);
  async function revoke(t: Token) {
    try {
      await send('DELETE', `/v2/tokens/${encodeURIComponent(t.id)}`);
      error.value = null;
      list.reload();
    } catch (err) {
      error.value = err as Error;
    }
  }
  return (
    <section class="card settings-card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      {list.error ? (
        <Refusal error={list.error} />
      ) : !list.data ? (
        <Loading label="Loading tokens…" />
      ) : (
        <>
          <div class="table-wrap flat">
            <table class="tokens">
              <caption>Tokens that work now (values are never shown again)</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Projects</th>
                  <th scope="col">Token</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((t) => (
                  <tr key={t.id} data-token={t.id}>
                    <th scope="row">{t.name}</th>
                    <td>{t.scope}</td>
                    <td>{t.projectIds ? t.projectIds.join(', ') : 'all'}</td>
                    <td>
                      <code>{t.hint}</code>
                    </td>
                    <td>{t.lastUsedAt ? when(t.lastUsedAt) : 'never'}</td>
                    <td>{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
                    <td>
                      <button onClick={() => void revoke(t)} aria-label={`Revoke ${t.name}`}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <CreateToken project={project} onCreated={list.reload} />
        </>
      )}
      {error.value ? <Refusal error={error.value} /> : null}
    </section>
  );
}

function CreateToken({ project, onCreated }: { project: string; onCreated: () => void }) {
  const name = useSignal('');
  const scope = useSignal('read');
  const only = useSignal(true);
  const expires = useSignal('');
  const created = useSignal<{ name: string; token: string } | null>(null);
  const error = useSignal<Error | null>(null);
  async function submit(e: Event) {
    e.preventDefault();
    try {
      const { data } = await send<{ data: Token & { token: string } }>('POST', '/v2/tokens', {
        name: name.value,
        scope: scope.value,
        ...(only.value ? { projectIds: [project] } : {}),
        ...(expires.value ? { expiresAt: new Date(`${expires.value}T00:00:00Z`).toISOString() } : {}),
      });
      created.value = { name: data.name, token: data.token };
      error.value = null;
      name.value = '';
      onCreated();
    } catch (err) {
      error.value = err as Error;
    }
  }
  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return (
    <>
      <form class="row-form" onSubmit={submit} aria-label="New token">
        <label>
          Token name
          <input required maxLength={200} value={name.value} onInput={(e) => (name.value = value(e))} />
        </label>
        <label>
          Scope
          <select value={scope.value} onChange={(e) => (scope.value = value(e))}>
            <option value="read">read</option>
            <option value="sql">sql</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <ProjectsPicker only={only} />
        <label>
          Expires (optional)
          <input type="date" value={expires.value} onInput={(e) => (expires.value = value(e))} />
        </label>
        <button class="primary" type="submit">
          Create token
        </button>
      </form>
      {created.value ? (
        <p class="secret" role="status">
          Token {created.value.name}, shown this once: <code data-secret>{created.value.token}</code>
        </p>
      ) : null}
      {error.value ? <Refusal error={error.value} /> : null}
    </>
  );
}

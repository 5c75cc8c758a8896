// Members and their roles (/v2/members): owners and admins read the list; owners add a member by the
// provider's login, change a role and remove one. The API refuses what the caller may not do (403), and
// leaving no owner (409); both are shown with its message.
import { useSignal } from '@preact/signals';
import { get, send } from '../../api.ts';
import { authKey, session } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Loading } from '../../components/notes.tsx';
import { when } from '../people/when.ts';
import { ProjectsPicker } from './projects-picker.tsx';
import { Refusal } from './refusal.tsx';

type Member = {
  id: string;
  login: string;
  name: string | null;
  role: string;
  projectIds: string[] | null;
  lastSeenAt: string | null;
};

const ROLES = ['owner', 'admin', 'analyst', 'viewer'];

export function Members({ project }: { project: string }) {
  const list = useLoad(`${authKey.value}|members`, (signal) =>
    get<{ data: Member[] }>('/v2/members', undefined, signal).then((r) => r.data),
  );
  const error = useSignal<Error | null>(null);
  const done = useSignal<string | null>(null);
  const owner = session.value?.role === 'owner';
  async function act(what: string, run: () => Promise<unknown>) {
    try {
      await run();
      error.value = null;
      done.value = what;
      list.reload();
    } catch (err) {
      done.value = null;
      error.value = err as Error;
    }
  }
  const path = (m: Member) => `/v2/members/${encodeURIComponent(m.id)}`;
  return (
    <section class="card settings-card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {list.error ? (
        <Refusal error={list.error} />
      ) : !list.data ? (
        <Loading label="Loading members…" />
      ) : (
        <div class="table-wrap flat">
          <table class="members">
            <caption>
              {owner ? 'People who can sign in, and their roles' : 'People who can sign in (owners change roles)'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Login</th>
                <th scope="col">Role</th>
                <th scope="col">Projects</th>
                <th scope="col">Last seen</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((m) => (
                <tr key={m.id} data-member={m.login}>
                  <th scope="row">
                    {m.login}
                    {m.name ? <span class="muted"> {m.name}</span> : null}
                  </th>
                  <td>
                    {owner ? (
                      <select
                        aria-label={`Role of ${m.login}`}
                        value={m.role}
                        onChange={(e) => {
                          const role = (e.currentTarget as HTMLSelectElement).value;
                          void act(`${m.login} is now ${role}.`, () => send('PATCH', path(m), { role }));
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{m.projectIds ? m.projectIds.join(', ') : 'all'}</td>
                  <td>{m.lastSeenAt ? when(m.lastSeenAt) : 'never'}</td>
                  <td>
                    {owner ? (
                      <button
                        aria-label={`Remove ${m.login}`}
                        onClick={() => void act(`${m.login} was removed.`, () => send('DELETE', path(m)))}
                      >
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {owner && list.data ? (
        <AddMember project={project} onAdd={(body, what) => act(what, () => send('POST', '/v2/members', body))} />
      ) : null}
      {done.value ? <p role="status">{done.value}</p> : null}
      {error.value ? <Refusal error={error.value} /> : null}
    </section>
  );
}

function AddMember(props: { project: string; onAdd: (body: unknown, what: string) => Promise<void> }) {
  const login = useSignal('');
  const role = useSignal('viewer');
  const only = useSignal(true);
  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return (
    <form
      class="row-form"
      aria-label="Add a member"
      onSubmit={(e) => {
        e.preventDefault();
        const body = { login: login.value, role: role.value, projectIds: only.value ? [props.project] : null };
        void props.onAdd(body, `${login.value} was added as ${role.value}.`).then(() => (login.value = ''));
      }}
    >
      <label>
        Login (as the sign-in provider names them)
        <input required maxLength={200} value={login.value} onInput={(e) => (login.value = value(e))} />
      </label>
      <label>
        Role
        <select value={role.value} onChange={(e) => (role.value = value(e))}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <ProjectsPicker only={only} />
      <button class="primary" type="submit">
        Add member
      </button>
    </form>
  );
}

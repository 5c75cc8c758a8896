// The frame around every view: the brand, the project's tabs, and getting in (sign in with the
// provider, paste a token, sign out). The token is checked against the API before it is kept.
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { setToken } from './api.ts';
import { session, signedIn, signInHref, signOut } from './auth.ts';
import { projects } from './projects-store.ts';
import { onLinkClick, projectPath, type RouteMatch } from './router.ts';
import { projectViews } from './views/index.ts';

export function Header({ route }: { route: RouteMatch | null }) {
  const project = route?.name === 'project' ? route : null;
  const name = project && projects.value.list?.find((p) => p.id === project.project)?.name;
  return (
    <header class="top">
      <a class="brand" href="/" onClick={onLinkClick}>
        <span aria-hidden="true">◎</span> Loupe
      </a>
      {project ? (
        <nav class="crumbs" aria-label="Project">
          <a href="/" onClick={onLinkClick}>
            Projects
          </a>
          <span aria-hidden="true">/</span>
          <strong>{name ?? project.project}</strong>
          {Object.entries(projectViews)
            .filter(([, v]) => !v.hidden)
            .map(([key, v]) => (
              <a
                key={key}
                class="tab"
                href={projectPath(project.project, key)}
                onClick={onLinkClick}
                aria-current={project.view === key ? 'page' : undefined}
              >
                {v.label}
              </a>
            ))}
        </nav>
      ) : (
        <span class="crumbs" />
      )}
      <Access />
    </header>
  );
}

function Access() {
  const open = useSignal(false);
  if (signedIn.value) {
    const who = session.value?.user ? (session.value.user.name ?? session.value.user.login) : 'API token';
    return (
      <div class="access">
        <span class="who">{who}</span>
        <button onClick={() => void signOut()}>Sign out</button>
      </div>
    );
  }
  const href = signInHref();
  return (
    <div class="access">
      {href ? (
        <a class="button primary" href={href}>
          Sign in
        </a>
      ) : null}
      <button aria-expanded={open.value} onClick={() => (open.value = !open.value)}>
        Use an API token
      </button>
      {open.value ? <TokenForm onDone={() => (open.value = false)} /> : null}
    </div>
  );
}

export function TokenForm({ onDone }: { onDone?: () => void }) {
  const value = useSignal('');
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const id = useId();
  async function submit(e: Event) {
    e.preventDefault();
    const t = value.value.trim();
    if (!t) return void (error.value = 'Paste a token first (it starts with at_).');
    busy.value = true;
    try {
      // Checked before it is kept, so a mistyped token never becomes the tab's credential.
      const res = await fetch('/v2/projects', { headers: { authorization: `Bearer ${t}` } });
      if (res.ok) {
        setToken(t);
        error.value = null;
        onDone?.();
      } else {
        const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
        error.value = `The API refused this token: ${body.error?.message ?? res.statusText}`;
      }
    } catch {
      error.value = 'Loupe could not be reached. Check that the server is running.';
    } finally {
      busy.value = false;
    }
  }
  return (
    <form class="token-form" onSubmit={submit}>
      <label for={id}>API token</label>
      <input
        id={id}
        class="token-input"
        type="password"
        autocomplete="off"
        placeholder="at_live_…"
        value={value.value}
        onInput={(e) => (value.value = (e.currentTarget as HTMLInputElement).value)}
      />
      <button class="primary" type="submit" disabled={busy.value}>
        Use token
      </button>
      <small>Kept for this tab only.</small>
      {error.value ? (
        <p class="note error" role="alert">
          {error.value}
        </p>
      ) : null}
    </form>
  );
}

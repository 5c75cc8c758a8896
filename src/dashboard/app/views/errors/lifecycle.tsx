// Resolve, Ignore and Reopen: each asks the API (PATCH …/issues/{issue}); the lifecycle machine there
// decides, and a refused transition (409) or a refused caller (401/403) shows the API's own message.
import { useSignal } from '@preact/signals';
import { ApiError, send } from '../../api.ts';
import { canTryAdmin } from '../../components/admin.ts';
import { issuesPath, type Issue, type Status } from './types.ts';

const ACTIONS: { to: Status; label: string }[] = [
  { to: 'resolved', label: 'Resolve' },
  { to: 'ignored', label: 'Ignore' },
  { to: 'open', label: 'Reopen' },
];

export function Lifecycle({ project, issue, onChanged }: { project: string; issue: Issue; onChanged: () => void }) {
  const busy = useSignal(false);
  const message = useSignal<{ text: string; error: boolean } | null>(null);
  if (!canTryAdmin()) return null;
  async function go(to: Status, label: string) {
    busy.value = true;
    try {
      const r = await send<{ data: { status: Status } }>(
        'PATCH',
        `${issuesPath(project)}/${encodeURIComponent(issue.id)}`,
        { status: to },
      );
      message.value = { text: `${label}: the issue is now ${r.data.status}.`, error: false };
      onChanged();
    } catch (err) {
      const e = err as Error;
      const code = err instanceof ApiError ? ` (${err.status} ${err.code})` : '';
      message.value = { text: `${label} was refused: ${e.message}${code}`, error: true };
    } finally {
      busy.value = false;
    }
  }
  return (
    <div class="lifecycle" role="group" aria-label="Issue status">
      {ACTIONS.map((a) => (
        <button key={a.to} disabled={busy.value} onClick={() => void go(a.to, a.label)}>
          {a.label}
        </button>
      ))}
      {message.value ? (
        <p class={message.value.error ? 'note error' : 'note'} role={message.value.error ? 'alert' : 'status'}>
          {message.value.text}
        </p>
      ) : null}
    </div>
  );
}

// An event's parsed stack, in-app frames first (the code the project owns is what to read), the others
// folded below; and its breadcrumbs as a timeline, each with its time before the error.
import type { Frame, IssueEvent } from './types.ts';

export function Stack({ frames }: { frames: Frame[] }) {
  if (frames.length === 0) return <p class="note empty">This error came without a stack.</p>;
  const own = frames.filter((f) => f.inApp);
  const other = frames.filter((f) => !f.inApp);
  return (
    <>
      <ol class="frames in-app" aria-label="In-app frames">
        {own.map((f, i) => (
          <FrameLine key={i} frame={f} />
        ))}
      </ol>
      {other.length ? (
        <details>
          <summary>
            {other.length} other frame{other.length === 1 ? '' : 's'} (libraries, the browser)
          </summary>
          <ol class="frames" aria-label="Other frames">
            {other.map((f, i) => (
              <FrameLine key={i} frame={f} />
            ))}
          </ol>
        </details>
      ) : null}
    </>
  );
}

function FrameLine({ frame: f }: { frame: Frame }) {
  const at = [f.file ?? '?', f.line, f.column].filter((x) => x !== null).join(':');
  return (
    <li class={f.inApp ? 'frame in-app' : 'frame'}>
      <code>{f.function ?? '(anonymous)'}</code> <span class="muted">{at}</span>
    </li>
  );
}

export function Breadcrumbs({ crumbs, at }: { crumbs: IssueEvent['breadcrumbs']; at: string }) {
  if (crumbs.length === 0) return <p class="note empty">No breadcrumbs were sent with this event.</p>;
  const end = Date.parse(at);
  return (
    <ol class="crumbs-timeline">
      {crumbs.map((c, i) => (
        <li key={i} data-kind={c.kind}>
          <time dateTime={c.ts}>{before(end - Date.parse(c.ts))}</time>
          <span class={`crumb-kind ${c.kind}`}>{c.kind}</span>
          <span class="crumb-message">{c.message}</span>
        </li>
      ))}
    </ol>
  );
}

function before(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms before`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s before`;
  return `${Math.round(ms / 60_000)} min before`;
}

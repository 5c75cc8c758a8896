// The lines, newest first. A rejected event's data (code, reason, field, index, event) is spelled out
// under its message; any other data can be opened as JSON.
import { Empty, Loading } from '../../components/notes.tsx';
import type { LogLine } from './stream.ts';

export function Lines({ lines, waiting }: { lines: LogLine[]; waiting: boolean }) {
  if (lines.length === 0)
    return waiting ? (
      <Loading label="Loading the log…" />
    ) : (
      <Empty>No lines match yet. New ones appear here as they happen; loosen a filter to see older ones.</Empty>
    );
  return (
    <ol class="log-lines" aria-label="Log lines, newest first" data-count={lines.length}>
      {[...lines].reverse().map((l) => (
        <Line key={l.id} line={l} />
      ))}
    </ol>
  );
}

function Line({ line: l }: { line: LogLine }) {
  const d = l.data ?? {};
  const rejected = typeof d.code === 'string' && (d.field !== undefined || d.reason !== undefined);
  return (
    <li class={`log-line ${l.level}`} data-id={l.id} data-level={l.level}>
      <time dateTime={l.ts}>{l.ts.slice(11, 19)}</time>
      <span class={`level ${l.level}`}>{l.level}</span>
      <span class="kind">
        {l.kind} · {l.source}
      </span>
      <span class="message">{l.message}</span>
      {l.visitor ? <span class="muted visitor">visitor {l.visitor}</span> : null}
      {rejected ? (
        <dl class="rejection">
          <Item label="Code" value={d.code} />
          <Item label="Field" value={d.field} />
          <Item label="Reason" value={d.reason} />
          <Item label="Event" value={d.event} />
          <Item label="Index" value={d.index} />
        </dl>
      ) : null}
      {!rejected && Object.keys(d).length ? (
        <details>
          <summary>Data</summary>
          <pre>{JSON.stringify(d, null, 2)}</pre>
        </details>
      ) : null}
    </li>
  );
}

function Item({ label, value }: { label: string; value: unknown }) {
  if (value === undefined || value === null || value === '') return null;
  return (
    <div data-item={label.toLowerCase()}>
      <dt>{label}</dt>
      <dd>{String(value)}</dd>
    </div>
  );
}

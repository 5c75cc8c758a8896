// Logs: the project's log stream, live. Filters (level, kind, source, visitor, text) are the API's and sit
// in the address. Pause holds new lines aside (none is dropped) and Resume shows them; a rejected event's
// code, field and reason are spelled out on its line.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { authKey } from '../../auth.ts';
import { ErrorNote } from '../../components/notes.tsx';
import { readParams } from '../../components/view-query.ts';
import type { ProjectViewProps } from '../index.ts';
import { Filters, FILTER_NAMES } from './filters.tsx';
import { Lines } from './lines.tsx';
import { tailLogs, type LogLine } from './stream.ts';

/** Lines kept on screen; older ones leave the screen (the API keeps them 7 days). */
const SHOWN = 1000;

export default function Logs({ project }: ProjectViewProps) {
  const params = readParams();
  const filters: Record<string, string> = {};
  for (const name of FILTER_NAMES) {
    const v = params.get(name);
    if (v) filters[name] = v;
  }
  const key = `${authKey.value}|${project}|${JSON.stringify(filters)}`;
  const lines = useSignal<LogLine[]>([]);
  const held = useSignal<LogLine[]>([]);
  const paused = useSignal(false);
  const status = useSignal<'connecting' | 'live' | 'retrying' | 'refused'>('connecting');
  const error = useSignal<Error | null>(null);
  useEffect(() => {
    lines.value = [];
    held.value = [];
    error.value = null;
    return tailLogs(`/v2/projects/${encodeURIComponent(project)}/logs`, filters, {
      onLines: (more) => {
        if (paused.peek()) held.value = [...held.peek(), ...more];
        else lines.value = [...lines.peek(), ...more].slice(-SHOWN);
      },
      onStatus: (s, err) => {
        status.value = s;
        if (err) error.value = err;
      },
    });
  }, [key]);
  const resume = () => {
    lines.value = [...lines.value, ...held.value].slice(-SHOWN);
    held.value = [];
    paused.value = false;
  };
  return (
    <section class="logs-view" aria-labelledby="logs-title">
      <h1 id="logs-title">Logs</h1>
      <Filters project={project} filters={filters} />
      <div class="tail-bar" data-status={status.value} data-paused={paused.value ? 'true' : 'false'}>
        <span class={`dot ${status.value}`} aria-hidden="true" />
        <span role="status">{STATUS_TEXT[status.value]}</span>
        {paused.value ? (
          <>
            <span class="held" data-held={held.value.length}>
              Paused: {held.value.length} new line{held.value.length === 1 ? '' : 's'} held
            </span>
            <button class="primary" onClick={resume}>
              Resume
            </button>
          </>
        ) : (
          <button onClick={() => (paused.value = true)}>Pause</button>
        )}
      </div>
      {error.value ? <ErrorNote error={error.value} /> : null}
      <Lines lines={lines.value} waiting={status.value === 'connecting'} />
    </section>
  );
}

const STATUS_TEXT = {
  connecting: 'Connecting…',
  live: 'Live: new lines appear as they happen',
  retrying: 'Connection lost, reconnecting…',
  refused: 'The log stream was refused',
} as const;

// One session's events as a timeline (GET /v2/projects/{p}/sessions/{session}/events, detail access): the
// header (visitor, start, duration, bot score and reasons), then each event in order with its time since
// the start, page and props; "Load more" reads the next page. Exports give every event as CSV or JSON.
import { useSignal } from '@preact/signals';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { duration } from '../../format.ts';
import { projectApi } from '../../project-info.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import type { ProjectViewProps } from '../index.ts';
import { Exports } from '../people/exports.tsx';
import { time, when } from '../people/when.ts';

type SessionEvent = {
  id: string;
  name: string;
  ts: string;
  page: { path: string | null; route: string | null; title: string | null; referrer: string | null };
  props: Record<string, unknown>;
};
type Answer = {
  session: {
    id: string;
    visitor: string;
    startedAt: string;
    durationMs: number;
    bot: { score: number; reasons: string[] };
  };
  data: SessionEvent[];
  nextCursor: string | null;
};

const PAGE = 100;

export default function Session({ project, item }: ProjectViewProps) {
  if (!item) return <Empty>Open a session from a visitor's profile.</Empty>;
  return <Timeline key={item} project={project} id={item} />;
}

function Timeline({ project, id }: { project: string; id: string }) {
  const path = projectApi(project, `/sessions/${encodeURIComponent(id)}/events`);
  const first = useLoad(`${authKey.value}|${path}`, (signal) => get<Answer>(path, { limit: PAGE }, signal));
  // Later pages, appended in order.
  const more = useSignal<{ events: SessionEvent[]; next: string | null; error: Error | null } | null>(null);
  if (first.error) return <ErrorNote error={first.error} />;
  if (!first.data) return <Loading label="Loading the session…" />;
  const { session } = first.data;
  const events = [...first.data.data, ...(more.value?.events ?? [])];
  const next = more.value ? more.value.next : first.data.nextCursor;
  async function loadMore() {
    try {
      const page = await get<Answer>(path, { limit: PAGE, cursor: next ?? undefined });
      more.value = { events: [...(more.value?.events ?? []), ...page.data], next: page.nextCursor, error: null };
    } catch (err) {
      more.value = { events: more.value?.events ?? [], next, error: err as Error };
    }
  }
  const start = Date.parse(session.startedAt);
  return (
    <section class="session" aria-labelledby="session-title" data-loaded="true">
      <a href={projectPath(project, 'people') + `/${encodeURIComponent(session.visitor)}`} onClick={onLinkClick}>
        ← Visitor {session.visitor}
      </a>
      <h1 id="session-title">Session of {when(session.startedAt)}</h1>
      <p class="session-head">
        <span>
          Duration <strong data-duration>{duration(session.durationMs)}</strong>
        </span>
        <span>
          Bot score <strong data-score>{session.bot.score}</strong>
          {session.bot.reasons.length ? ` (${session.bot.reasons.join(', ')})` : ''}
        </span>
      </p>
      <Exports path={path} query={{}} name={`${project}-session-${session.id}`} what="this session's events" />
      {events.length === 0 ? (
        <Empty>This session has no events.</Empty>
      ) : (
        <ol class="timeline" aria-label="Events in order">
          {events.map((e) => (
            <li key={e.id} data-event={e.id}>
              <time dateTime={e.ts} title={e.ts}>
                {time(e.ts)} <span class="muted">+{duration(Date.parse(e.ts) - start)}</span>
              </time>
              <strong class="event-name">{e.name}</strong>
              {e.page.path ? <span class="event-page">{e.page.path}</span> : null}
              {e.page.title ? <span class="muted"> {e.page.title}</span> : null}
              {Object.keys(e.props).length > 0 ? (
                <dl class="props">
                  {Object.entries(e.props).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                    </div>
                  ))}
                </dl>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {more.value?.error ? <ErrorNote error={more.value.error} /> : null}
      {next ? <button onClick={() => void loadMore()}>Load more events</button> : null}
    </section>
  );
}

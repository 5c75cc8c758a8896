// One visitor's profile (GET /v2/projects/{p}/visitors/{visitor}): visits, geography, device, the bot
// verdict with the signals that fired, identity and experiments, top pages and recent sessions (each a
// link to its timeline). Admins can mark the visitor as internal traffic, or not (PATCH; the API's
// answer says how many events and sessions changed, and a refusal is shown as the API words it).
import { useSignal } from '@preact/signals';
import { get, send } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote, Loading } from '../../components/notes.tsx';
import { count, countryName, duration } from '../../format.ts';
import { canAdmin, projectApi, useProjectInfo } from '../../project-info.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import { BotVerdict, Facts } from './facts.tsx';
import { when } from './when.ts';

export type Visitor = {
  id: string;
  firstSeen: string;
  lastSeen: string;
  sessions: number;
  pageviews: number;
  events: number;
  visitCount: number;
  daysActive: number;
  medianDaysBetweenVisits: number;
  returnedWithin: { day: boolean; week: boolean; month: boolean };
  isInternal: boolean;
  identity: { userId: string | null; traits: Record<string, unknown> };
  experiments: Record<string, string>;
  geo: Record<'country' | 'region' | 'city' | 'postalCode' | 'timezone', string | null> & {
    latitude: number | null;
    longitude: number | null;
  };
  device: Record<string, string | null>;
  topPages: { value: string | null; pageviews: number }[];
  recentSessions: {
    id: string;
    startedAt: string;
    durationMs: number;
    pageviews: number;
    entryPage: string | null;
    exitPage: string | null;
    referrer: string | null;
  }[];
  bot: { score: number; verdict: string; signals: Record<string, boolean | null> };
};

export function VisitorProfile({ project, visitor }: { project: string; visitor: string }) {
  const info = useProjectInfo(project);
  const profile = useLoad(`${authKey.value}|${project}|${visitor}`, (signal) =>
    get<{ data: Visitor }>(projectApi(project, `/visitors/${encodeURIComponent(visitor)}`), undefined, signal).then(
      (r) => r.data,
    ),
  );
  const back = (
    <a href={projectPath(project, 'people')} onClick={onLinkClick}>
      ← All people
    </a>
  );
  if (profile.error)
    return (
      <section class="visitor">
        {back}
        <ErrorNote error={profile.error} />
      </section>
    );
  const v = profile.data;
  if (!v) return <Loading label="Loading the visitor…" />;
  const returned = (['day', 'week', 'month'] as const).filter((k) => v.returnedWithin[k]);
  return (
    <section class="visitor" aria-labelledby="visitor-title" data-loaded={profile.loading ? 'false' : 'true'}>
      {back}
      <h1 id="visitor-title">
        Visitor <code>{v.identity.userId ?? v.id}</code>
        {v.isInternal ? <span class="badge">internal</span> : null}
      </h1>
      {canAdmin(info.data) ? <InternalToggle project={project} visitor={v} onDone={profile.reload} /> : null}
      <div class="facts-grid">
        <Facts
          title="Visits"
          rows={[
            ['Visits', count(v.visitCount)],
            ['Sessions', count(v.sessions)],
            ['Pageviews', count(v.pageviews)],
            ['Events', count(v.events)],
            ['Days active', count(v.daysActive)],
            ['Median days between visits', count(v.medianDaysBetweenVisits)],
            ['Came back within', returned.length ? returned.join(', ') : 'not yet'],
            ['First seen', when(v.firstSeen)],
            ['Last seen', when(v.lastSeen)],
          ]}
        />
        <Facts
          title="Geography"
          rows={[
            ['Country', v.geo.country ? countryName(v.geo.country) : null],
            ['Region', v.geo.region],
            ['City', v.geo.city],
            ['Postal code', v.geo.postalCode],
            ['Time zone', v.geo.timezone],
            [
              'Coordinates',
              v.geo.latitude === null || v.geo.longitude === null ? null : `${v.geo.latitude}, ${v.geo.longitude}`,
            ],
          ]}
        />
        <Facts
          title="Device"
          rows={[
            ['Type', v.device.type ?? null],
            ['Browser', [v.device.browser, v.device.browserVersion].filter(Boolean).join(' ') || null],
            ['Operating system', [v.device.os, v.device.osVersion].filter(Boolean).join(' ') || null],
            ['Screen', v.device.screen ?? null],
            ['Viewport', v.device.viewport ?? null],
            ['Language', v.device.language ?? null],
            ['Connection', v.device.connection ?? null],
          ]}
        />
        <BotVerdict bot={v.bot} />
        <Facts
          title="Identity"
          rows={[
            ['User id', v.identity.userId],
            ...Object.entries(v.identity.traits).map(([k, t]): [string, string] => [k, show(t)]),
            ...Object.entries(v.experiments).map(([k, t]): [string, string] => [`Experiment ${k}`, t]),
          ]}
        />
        <Facts
          title="Top pages"
          rows={v.topPages.map((p): [string, string] => [
            p.value ?? '(none)',
            `${count(p.pageviews)} ${p.pageviews === 1 ? 'view' : 'views'}`,
          ])}
        />
      </div>
      <Sessions project={project} sessions={v.recentSessions} />
    </section>
  );
}

const show = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));

function Sessions({ project, sessions }: { project: string; sessions: Visitor['recentSessions'] }) {
  return (
    <div class="table-wrap">
      <table class="sessions">
        <caption>Recent sessions</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="num">
              Pageviews
            </th>
            <th scope="col">Entry page</th>
            <th scope="col">Exit page</th>
            <th scope="col">Referrer</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <a href={projectPath(project, 'session') + `/${encodeURIComponent(s.id)}`} onClick={onLinkClick}>
                  {when(s.startedAt)}
                </a>
              </th>
              <td class="num">{duration(s.durationMs)}</td>
              <td class="num">{count(s.pageviews)}</td>
              <td>{s.entryPage ?? '–'}</td>
              <td>{s.exitPage ?? '–'}</td>
              <td>{s.referrer ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function InternalToggle({ project, visitor, onDone }: { project: string; visitor: Visitor; onDone: () => void }) {
  const busy = useSignal(false);
  const result = useSignal<string | null>(null);
  const error = useSignal<Error | null>(null);
  const next = !visitor.isInternal;
  async function toggle() {
    busy.value = true;
    try {
      const { data } = await send<{ data: { eventsUpdated: number; sessionsUpdated: number } }>(
        'PATCH',
        projectApi(project, `/visitors/${encodeURIComponent(visitor.id)}`),
        { isInternal: next },
      );
      error.value = null;
      result.value = `${next ? 'Marked as internal' : 'No longer internal'}: ${count(data.eventsUpdated)} events and ${count(data.sessionsUpdated)} sessions changed.`;
      onDone();
    } catch (err) {
      error.value = err as Error;
    } finally {
      busy.value = false;
    }
  }
  return (
    <div class="internal-toggle">
      <p>
        {visitor.isInternal
          ? 'This visitor is internal traffic: left out of the numbers unless traffic is "internal" or "all".'
          : 'This visitor counts as ordinary traffic.'}{' '}
        <button onClick={() => void toggle()} disabled={busy.value} aria-pressed={visitor.isInternal}>
          {next ? 'Mark as internal' : 'Mark as not internal'}
        </button>
      </p>
      {result.value ? <p role="status">{result.value}</p> : null}
      {error.value ? <ErrorNote error={error.value} /> : null}
    </div>
  );
}

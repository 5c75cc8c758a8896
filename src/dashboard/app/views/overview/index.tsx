// A project's overview: the controls and filter chips (all held in the address), the live numbers,
// the six headline numbers, the time series and the breakdown panels. Live pushes refresh the stored
// numbers (throttled to one read a second) when the range reaches the present.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote } from '../../components/notes.tsx';
import { navigate, place, projectPath } from '../../router.ts';
import { reachesNow, readState, writeState, type ViewState } from '../../query-state.ts';
import type { ProjectViewProps } from '../index.ts';
import { Chart } from './chart.tsx';
import { Chips, Controls } from './controls.tsx';
import { FirstEvent } from './first-event.tsx';
import { Headline } from './headline.tsx';
import { useLive } from './live.ts';
import { LiveBar, RealtimePanel } from './realtime.tsx';
import { Panels } from './panels.tsx';

export type Ctx = {
  project: string;
  state: ViewState;
  update: (patch: Partial<ViewState>) => void;
  /** Changes when live pushes ask for fresh numbers. */
  tick: number;
  /** The headline numbers have arrived once: the other reads wait for it, so the first numbers come first
   *  (the embedded database answers one query at a time). */
  ready: boolean;
  onReady: () => void;
};

export type ProjectInfo = { id: string; name: string; visibility: string; publicKey?: string };

export default function Overview({ project }: ProjectViewProps) {
  const state = readState(place.value.search);
  const live = useLive(project, authKey.value);
  const tick = useThrottledTick(live.changes.value, reachesNow(state));
  const ready = useSignal(false);
  const info = useLoad(ready.value ? `${authKey.value}|${project}` : null, (signal) =>
    get<{ data: ProjectInfo }>(`/v2/projects/${encodeURIComponent(project)}`, undefined, signal).then((r) => r.data),
  );
  if (info.error) return <ErrorNote error={info.error} />;
  const update = (patch: Partial<ViewState>) => navigate(projectPath(project) + writeState({ ...state, ...patch }));
  const ctx: Ctx = { project, state, update, tick, ready: ready.value, onReady: () => (ready.value = true) };
  return (
    <div class="overview">
      <h1 class="sr-only">{info.data?.name ?? project} overview</h1>
      <Controls ctx={ctx} />
      <Chips ctx={ctx} />
      <LiveBar live={live} />
      {ready.value ? <FirstEvent project={project} info={info.data} live={live} /> : null}
      <Headline ctx={ctx} />
      <Chart ctx={ctx} />
      <div class="panels">
        <RealtimePanel live={live} />
        <Panels ctx={ctx} />
      </div>
    </div>
  );
}

/** A counter that follows `changes` at most once a second, and only while `active`. */
function useThrottledTick(changes: number, active: boolean): number {
  const tick = useSignal(0);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (!active || changes === 0) return;
    const wait = Math.max(0, last.current + 1000 - Date.now());
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      last.current = Date.now();
      tick.value++;
    }, wait);
  }, [changes, active]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return tick.value;
}

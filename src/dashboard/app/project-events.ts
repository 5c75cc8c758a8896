// Whether a project has ever received an event, of any traffic kind: what decides the first-event panel
// and the first start's landing. Period "all" ends at the start of today (UTC), so today is read beside it.
import { get } from './api.ts';

type Visitors = { data: { visitors: { value: number } } };
const DAY = 86_400_000;

export async function hasAnyEvent(project: string, signal?: AbortSignal): Promise<boolean> {
  const path = `/v2/projects/${encodeURIComponent(project)}/stats`;
  const every = { traffic: 'all', environment: 'all' };
  const today = Math.floor(Date.now() / DAY) * DAY;
  const [before, since] = await Promise.all([
    get<Visitors>(path, { ...every, period: 'all' }, signal),
    get<Visitors>(
      path,
      { ...every, from: new Date(today).toISOString(), to: new Date(today + DAY).toISOString() },
      signal,
    ),
  ]);
  return before.data.visitors.value + since.data.visitors.value > 0;
}

// Errors: the project's issues by status, and one issue's page (its id is the address's last part).
// A push on the project's live feed (an accepted batch, a new snapshot) reads them again, so new
// occurrences appear without a reload.
import { authKey } from '../../auth.ts';
import type { ProjectViewProps } from '../index.ts';
import { useLive } from '../overview/live.ts';
import { useThrottled } from './throttle.ts';
import { IssueList } from './list.tsx';
import { IssuePage } from './issue.tsx';

export default function Errors({ project, item }: ProjectViewProps) {
  const live = useLive(project, authKey.value);
  const tick = useThrottled(live.changes.value, 2000);
  return (
    <div class="errors-view" data-live={live.status.value}>
      {item ? <IssuePage project={project} id={item} tick={tick} /> : <IssueList project={project} tick={tick} />}
    </div>
  );
}

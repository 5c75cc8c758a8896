// "Send your first event": shown while a project has never received one (all time, all traffic). It
// gives the snippet with the project's public key and a curl line, and turns green the moment the live
// feed reports an accepted batch or a visitor.
import { useSignal } from '@preact/signals';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Snippet } from '../../components/snippet.tsx';
import { hasAnyEvent } from '../../project-events.ts';
import type { ProjectInfo } from './index.tsx';
import type { Live } from './live.ts';

export function FirstEvent({ project, info, live }: { project: string; info: ProjectInfo | null; live: Live }) {
  const hidden = useSignal(false);
  const empty = useLoad(`${authKey.value}|${project}`, (signal) => hasAnyEvent(project, signal).then((any) => !any));
  if (!empty.data || hidden.value) return null;
  const arrived = live.accepted.value > 0 || (live.realtime.value?.visitors ?? 0) > 0;
  return (
    <section class="card first-event" aria-labelledby="first-title">
      <h2 id="first-title">Send your first event</h2>
      {info?.publicKey ? (
        <Snippet publicKey={info.publicKey} />
      ) : (
        <p>Ask an admin of this project for its public key (pk_…), then add the script tag to your site.</p>
      )}
      <p class={`check ${arrived ? 'ok' : 'waiting'}`} role="status" data-check={arrived ? 'ok' : 'waiting'}>
        <span class="dot" aria-hidden="true" />
        {arrived ? 'Your first event arrived.' : 'Waiting for the first event… this turns green as soon as it arrives.'}
      </p>
      {arrived ? (
        <button onClick={() => (hidden.value = true)} class="primary">
          Done
        </button>
      ) : null}
    </section>
  );
}

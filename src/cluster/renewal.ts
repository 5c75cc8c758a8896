// Keeping this process's leases: every renewMs it says it is alive and extends the leases it holds. One it
// lost (Redis was out of reach, or the process paused past the lease) goes to whoever asks next, and this
// process forwards from then on. Renewals that keep failing end with this process letting its projects go
// before their leases can expire (by then another process may have taken them).
import { lose, type ClusterState } from './state.ts';

/** Starts renewing; answers the function that stops it. */
export function startRenewal(state: ClusterState, opts: { renewMs: number; leaseMs: number }): () => void {
  const { leases, log } = state;
  let renewedAt = Date.now();
  const present = () =>
    leases.present().catch((err: unknown) => log.warn('could not tell the other processes this one is alive', { err }));
  void present();
  const timer = setInterval(() => {
    void present();
    const projectIds = [...state.held];
    leases.renew(projectIds).then(
      (lost) => {
        renewedAt = Date.now();
        lose(state, lost);
        if (lost.length > 0)
          log.warn('lost the lease of projects held here; their requests now go to the new holder', { projects: lost });
      },
      (err: unknown) => {
        log.warn('could not renew project leases', { err });
        if (Date.now() - renewedAt < opts.leaseMs * 0.7 || state.held.size === 0) return;
        log.warn('project leases not renewed for too long: their requests now go to whoever holds them', {
          projects: [...state.held],
        });
        lose(state, [...state.held]);
      },
    );
  }, opts.renewMs);
  timer.unref();
  return () => clearInterval(timer);
}

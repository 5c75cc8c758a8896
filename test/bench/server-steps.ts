// The server's ingest steps, run in the benchmark's own process (no HTTP): the lookups, one request's
// facts, and an actor whose store is never called, for sessionizing and the realtime window. Shared by
// `bench:ingest:stages` (which times each step) and `bench:ingest:flush` (which needs rows as the server
// would hand them to a flush).
import { ProjectActor } from '../../actors/project-actor.ts';
import { openDatacenter } from '../../src/ingest/datacenter.ts';
import type { EnrichedEvent, Lookups, RequestFacts } from '../../src/ingest/enrich.ts';
import { openGeo } from '../../src/ingest/geo.ts';

/** The actor's private steps, reached for timing: they run inside ingest() and the flush in the server. */
type ActorSteps = { place(r: EnrichedEvent): void; recordRealtime(r: EnrichedEvent): void };

export type ServerSteps = {
  lookups: Lookups;
  facts: RequestFacts;
  place: (r: EnrichedEvent) => void;
  recordRealtime: (r: EnrichedEvent) => void;
};

export async function serverSteps(projectId: string): Promise<ServerSteps> {
  const [geo, datacenter] = await Promise.all([openGeo(), openDatacenter()]);
  const facts: RequestFacts = {
    projectId,
    salt: 'bench-salt',
    keyKind: 'secret',
    ip: '127.0.0.1',
    userAgent: 'bench',
    headers: {},
    trustProxy: false,
    internal: false,
    receivedAt: Date.now(),
  };
  const actor = new ProjectActor(projectId, {
    commit: () => Promise.reject(new Error('not used')),
    checkpoint: () => Promise.reject(new Error('not used')),
  }) as unknown as ActorSteps;
  return {
    lookups: { geo, isDatacenterIp: (ip) => datacenter.isDatacenterIp(ip) },
    facts,
    place: (r) => actor.place(r),
    recordRealtime: (r) => actor.recordRealtime(r),
  };
}

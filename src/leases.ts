// Which process holds a project's actor (DESIGN.md, data flow 5). Alone, this process holds every project.
// Beside other processes (Redis), a project's lease is a key naming its holder that expires unless renewed:
// the first process to need the project takes it; the others forward to the holder (src/cluster.ts). A
// holder that dies stops renewing, and the next process to need the project takes the lease after it
// expires. Every script compares the holder, so a process never extends or frees a lease it lost.
import type { Redis } from 'ioredis';

export interface Leases {
  /** This process's id, as leases name their holder. */
  readonly self: string;
  /** Takes the project's lease when it is free (keeps it when it is this process's); answers the holder. */
  acquire(projectId: string): Promise<string>;
  /** The holder of the project's lease, or null when nobody holds it (nothing is taken). */
  holder(projectId: string): Promise<string | null>;
  /** Every project whose lease is held now, by holder (this process's own included); alone (no Redis), none:
   *  this process holds them all. */
  holders(): Promise<Map<string, string[]>>;
  /** Extends this process's leases; answers the projects among them whose lease it no longer holds. */
  renew(projectIds: string[]): Promise<string[]>;
  /** Frees the lease if this process holds it. */
  release(projectId: string): Promise<void>;
}

/** One process: it holds every lease. */
export function createLocalLeases(self: string): Leases {
  return { self, acquire: async () => self, holder: async () => self, holders: async () => new Map(), renew: async () => [], release: async () => {} };
}

// KEYS[1] lease; ARGV self, ttl ms. Answers the holder.
const ACQUIRE_LUA = `
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return holder
`;

// KEYS the leases; ARGV self, ttl ms. Answers the 1-based positions of the leases held by another, or by nobody.
const RENEW_LUA = `
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('PEXPIRE', key, ARGV[2]) else table.insert(lost, i) end
end
return lost
`;

// KEYS[1] lease; ARGV self.
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/** Leases in Redis under `prefix` (which names the database the processes share); `redis` is the caller's. */
export function createRedisLeases(redis: Redis, opts: { self: string; prefix: string; ttlMs: number }): Leases {
  const key = (projectId: string) => `${opts.prefix}${projectId}`;
  const ttl = String(opts.ttlMs);
  return {
    self: opts.self,
    async acquire(projectId) {
      return String(await redis.eval(ACQUIRE_LUA, 1, key(projectId), opts.self, ttl));
    },
    holder: (projectId) => redis.get(key(projectId)),
    async holders() {
      const byHolder = new Map<string, string[]>();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(opts.prefix)}*`, 'COUNT', 1_000);
        cursor = next;
        if (keys.length === 0) continue;
        // A lease that expired between the scan and the read names nobody.
        const named = await redis.mget(...keys);
        keys.forEach((k, i) => {
          const holder = named[i];
          if (!holder) return;
          const projectIds = byHolder.get(holder) ?? [];
          if (projectIds.length === 0) byHolder.set(holder, projectIds);
          projectIds.push(k.slice(opts.prefix.length));
        });
      } while (cursor !== '0');
      return byHolder;
    },
    async renew(projectIds) {
      if (projectIds.length === 0) return [];
      const lost = (await redis.eval(RENEW_LUA, projectIds.length, ...projectIds.map(key), opts.self, ttl)) as number[];
      return lost.map((i) => projectIds[i - 1]!);
    },
    async release(projectId) {
      await redis.eval(RELEASE_LUA, 1, key(projectId), opts.self);
    },
  };
}

/** A literal for Redis's MATCH patterns: its glob characters escaped. */
const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

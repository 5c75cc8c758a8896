// Which process holds a project's actor (DESIGN.md, data flow 5). Alone, this process holds every project.
// Beside other processes (Redis), a project's lease is a key naming its holder that expires unless renewed:
// the first process to need the project takes it; the others forward to the holder (src/cluster.ts). A
// holder that dies stops renewing, and the next process to need the project takes the lease after it
// expires. Every script compares the holder, so a process never extends or frees a lease it lost.
import type { Redis } from 'ioredis';
import { whileReachable } from './redis.ts';

export interface Leases {
  /** This process's id, as leases name their holder. */
  readonly self: string;
  /** Takes the project's lease when it is free (keeps it when it is this process's); answers the holder. */
  acquire(projectId: string): Promise<string>;
  /** The holder of the project's lease, or null when nobody holds it (nothing is taken). */
  holder(projectId: string): Promise<string | null>;
  /** Says this process is alive (it may hold leases): the cluster says so every few seconds. */
  present(): Promise<void>;
  /** The other processes that said so within a lease's lifetime; alone (no Redis), none. */
  peers(): Promise<string[]>;
  /** Says this process is gone (it stops). */
  leave(): Promise<void>;
  /** Extends this process's leases; answers the projects among them whose lease it no longer holds. */
  renew(projectIds: string[]): Promise<string[]>;
  /** Frees the lease if this process holds it. */
  release(projectId: string): Promise<void>;
}

/** One process: it holds every lease. */
export function createLocalLeases(self: string): Leases {
  return {
    self,
    acquire: async () => self,
    holder: async () => self,
    renew: async () => [],
    release: async () => {},
    present: async () => {},
    peers: async () => [],
    leave: async () => {},
  };
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

// Presence is stamped and read by Redis's clock, so processes on machines whose clocks differ agree.
const REDIS_NOW_MS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS[1] presence; ARGV self, ttl ms. Entries of processes gone without a word go once 3 lifetimes old.
const PRESENT_LUA = `${REDIS_NOW_MS}
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3 * tonumber(ARGV[2]))
return 0
`;

// KEYS[1] presence; ARGV ttl ms. Answers the processes heard from within a lifetime.
const PEERS_LUA = `${REDIS_NOW_MS}
return redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf')
`;

/** Leases in Redis under `prefix` (which names the database the processes share), and the processes alive
 *  in a sorted set at `presenceKey` (each one's last word, in ms); `redis` is the caller's. */
export function createRedisLeases(
  redis: Redis,
  opts: { self: string; prefix: string; presenceKey: string; ttlMs: number },
): Leases {
  const key = (projectId: string) => `${opts.prefix}${projectId}`;
  const ttl = String(opts.ttlMs);
  // Redis out of reach: every call fails at once with 503 (src/bus.ts), so a request never waits on it.
  const run = <T>(command: () => Promise<T>) => whileReachable(redis, command);
  return {
    self: opts.self,
    acquire: (projectId) => run(async () => String(await redis.eval(ACQUIRE_LUA, 1, key(projectId), opts.self, ttl))),
    holder: (projectId) => run(() => redis.get(key(projectId))),
    present: () => run(async () => void (await redis.eval(PRESENT_LUA, 1, opts.presenceKey, opts.self, ttl))),
    peers: () =>
      run(async () => {
        const alive = (await redis.eval(PEERS_LUA, 1, opts.presenceKey, ttl)) as string[];
        return alive.filter((p) => p !== opts.self);
      }),
    leave: () => run(async () => void (await redis.zrem(opts.presenceKey, opts.self))),
    async renew(projectIds) {
      if (projectIds.length === 0) return [];
      const lost = (await run(() =>
        redis.eval(RENEW_LUA, projectIds.length, ...projectIds.map(key), opts.self, ttl),
      )) as number[];
      return lost.map((i) => projectIds[i - 1]!);
    },
    release: (projectId) => run(async () => void (await redis.eval(RELEASE_LUA, 1, key(projectId), opts.self))),
  };
}

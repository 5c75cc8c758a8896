// Token-bucket rate limiting per key (the caller builds `${projectKey}:${clientIp}`), in memory for one
// process or in Redis (one atomic Lua script) when several processes share the limit. Answers a value,
// never throws for a limited caller: turning a refusal into a 429 with Retry-After is the route's job.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import * as v from 'valibot';
import { whileReachable } from '../redis.ts';

export type RateLimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Takes `cost` tokens (default 1) from the key's bucket; `now` (ms since the epoch) is for tests. */
  take(key: string, cost?: number, now?: number): Promise<RateLimitResult>;
  close(): Promise<void>;
}

export type BucketOptions = { capacity: number; refillPerSecond: number };

/** Ingest: a burst of 200 requests, then 50 a second, per project key and client IP. */
export const INGEST_RATE_LIMIT: BucketOptions = { capacity: 200, refillPerSecond: 50 };

const OK: RateLimitResult = { ok: true };

export function createMemoryRateLimiter(
  opts: Partial<BucketOptions> & { maxKeys?: number; sweepMs?: number } = {},
): RateLimiter {
  const { capacity, refillPerSecond } = bucketOptions(opts);
  const maxKeys = opts.maxKeys ?? 100_000;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
  // Insertion order is recency order (a bucket is re-inserted when used), so the front is the idlest.
  const buckets = new Map<string, Bucket>();
  const refilled = (b: Bucket, now: number) =>
    Math.min(capacity, b.tokens + (Math.max(0, now - b.at) * refillPerSecond) / 1000);
  const isFull = (b: Bucket, now: number) => refilled(b, now) >= capacity;

  // A full bucket is the same as no bucket: drop those, so idle clients cost no memory.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, b] of buckets) if (isFull(b, now)) buckets.delete(key);
  }, opts.sweepMs ?? 60_000);
  sweep.unref();

  return {
    async take(key, cost = 1, now = Date.now()) {
      checkCost(cost, capacity);
      let b = buckets.get(key);
      if (b) {
        buckets.delete(key);
        b.tokens = refilled(b, now);
        b.at = Math.max(b.at, now);
      } else {
        if (buckets.size >= maxKeys) makeRoom(buckets, maxKeys, now, isFull);
        b = { tokens: capacity, at: now };
      }
      buckets.set(key, b);
      if (b.tokens >= cost) {
        b.tokens -= cost;
        return OK;
      }
      return { ok: false, retryAfterSeconds: retryAfter(cost - b.tokens, refillPerSecond) };
    },
    async close() {
      clearInterval(sweep);
      buckets.clear();
    },
  };
}

/**
 * The Redis limiter; `redis` belongs to the caller (close() does not quit it). Each bucket is a hash
 * `{t: tokens, ts: ms}` that expires when it would be full again. Without `now`, the script reads the
 * Redis server's clock, so processes with skewed clocks still share one timeline.
 */
export function createRedisRateLimiter(
  redis: Redis,
  opts: Partial<BucketOptions> & { prefix?: string } = {},
): RateLimiter {
  const { capacity, refillPerSecond } = bucketOptions(opts);
  const prefix = opts.prefix ?? 'loupe:rl:';
  const args = [String(capacity), String(refillPerSecond)];

  async function run(key: string, cost: number, now: string): Promise<unknown> {
    try {
      return await redis.evalsha(TAKE_SHA, 1, prefix + key, ...args, String(cost), now);
    } catch (err) {
      // The script cache is empty after a restart or a SCRIPT FLUSH: EVAL sends it and caches it again.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(TAKE_LUA, 1, prefix + key, ...args, String(cost), now);
    }
  }

  return {
    async take(key, cost = 1, now) {
      checkCost(cost, capacity);
      const reply = await whileReachable(redis, () => run(key, cost, now === undefined ? '' : String(now)));
      const [ok, retryMs] = v.parse(TakeReply, reply);
      return ok === 1 ? OK : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)) };
    },
    async close() {},
  };
}

type Bucket = { tokens: number; at: number };

const TakeReply = v.tuple([v.picklist([0, 1]), v.pipe(v.number(), v.minValue(0))]);

// KEYS[1] bucket; ARGV capacity, refill per second, cost, now in ms ('' = the server's clock).
// Replies {1, 0} when taken, {0, ms until enough tokens} when refused. Lua numbers reply as integers.
const TAKE_LUA = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2]) / 1000
local cost = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local b = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
if now > ts then
  tokens = math.min(capacity, tokens + (now - ts) * rate)
  ts = now
end
local ok = 0
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
  ok = 1
else
  wait = math.ceil((cost - tokens) / rate)
end
local ttl = math.ceil((capacity - tokens) / rate)
if ttl > 0 then
  redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(ts))
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('DEL', KEYS[1])
end
return {ok, wait}
`;
const TAKE_SHA = createHash('sha1').update(TAKE_LUA).digest('hex');

function bucketOptions(opts: Partial<BucketOptions>): BucketOptions {
  const capacity = opts.capacity ?? INGEST_RATE_LIMIT.capacity;
  const refillPerSecond = opts.refillPerSecond ?? INGEST_RATE_LIMIT.refillPerSecond;
  if (!(capacity > 0) || !Number.isFinite(capacity)) throw new RangeError('capacity must be a positive number');
  if (!(refillPerSecond > 0) || !Number.isFinite(refillPerSecond))
    throw new RangeError('refillPerSecond must be a positive number');
  return { capacity, refillPerSecond };
}

// A cost above the capacity could never be paid: that is a caller's bug, not a client to refuse.
function checkCost(cost: number, capacity: number) {
  if (!(cost > 0) || cost > capacity) throw new RangeError(`cost must be in (0, ${capacity}]`);
}

/** Whole seconds (at least one) until the bucket holds `deficit` more tokens. */
function retryAfter(deficit: number, refillPerSecond: number): number {
  return Math.max(1, Math.ceil(deficit / refillPerSecond));
}

function makeRoom(
  buckets: Map<string, Bucket>,
  maxKeys: number,
  now: number,
  isFull: (b: Bucket, now: number) => boolean,
) {
  // Look at a bounded number of the idlest buckets, so a flood of new keys costs O(1) each.
  let looked = 0;
  for (const [key, b] of buckets) {
    if (isFull(b, now)) buckets.delete(key);
    if (++looked >= 64) break;
  }
  // Nothing idle: forget the least recently used bucket (its owner gets a fresh burst).
  if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
}

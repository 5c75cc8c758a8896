// The Redis clients of a process: how they connect and time out, the start-up check, and how a request
// learns that Redis is out of reach (503 with Retry-After, never a 500 or a request left hanging).
import { Redis, ReplyError } from 'ioredis';
import { unavailable } from './errors.ts';

/** How long a Redis command may take before its caller is told Redis is out of reach. */
export const REDIS_COMMAND_MS = 1_000;

/** An ioredis client that connects now and reconnects by itself. A command fails within REDIS_COMMAND_MS
 *  (queued while reconnecting, it waits no longer than that), so a request never hangs on a lost Redis. */
export function openRedis(url: string, opts: { name?: string; onError?: (err: Error) => void } = {}): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    commandTimeout: REDIS_COMMAND_MS,
    connectionName: opts.name,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Without a listener ioredis prints every connection error; with one, the owner decides.
  redis.on('error', opts.onError ?? (() => {}));
  return redis;
}

/** Start-up: pings until Redis answers, for at most `ms`; throws a message an operator can act on. */
export async function pingRedis(redis: Redis, url: string, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await redis.ping();
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const where = url.replace(/\/\/[^@/]*@/, '//***@'); // no password in the message
  throw new Error(
    `Redis at ${where} did not answer within ${ms} ms (${last instanceof Error ? last.message : String(last)}). ` +
      'Start it, fix REDIS_URL, or unset REDIS_URL to run a single process without Redis.',
  );
}

const GONE = new Set(['reconnecting', 'close', 'end']);

/** Runs a Redis command for a request: while Redis is out of reach (not connected, or the command timed
 *  out) it fails at once with 503 and Retry-After, never a 500. A reply error (a script's bug) stays what
 *  it is. */
export async function whileReachable<T>(redis: Redis, command: () => Promise<T>): Promise<T> {
  // Lost and waiting to reconnect: no need to wait for the command's time limit. (A client still making
  // its first connection queues the command, which then waits at most REDIS_COMMAND_MS.)
  if (GONE.has(redis.status)) throw unavailable('Redis is out of reach; try again in a moment.');
  try {
    return await command();
  } catch (err) {
    if (err instanceof ReplyError) throw err;
    throw unavailable('Redis is out of reach; try again in a moment.');
  }
}

// The cross-process bus for live fan-out and cache invalidation: Redis pub/sub with JSON payloads, or an
// in-memory twin for a single process. It checks only that a payload is JSON; what a message means, and
// validating its shape, belongs to each subscriber.
import { openRedis, whileReachable } from './redis.ts';

export { openRedis } from './redis.ts';

export type BusHandler = (message: unknown) => void;

export interface Bus {
  /** Answers how many subscribers received it: 0 says nobody listens on the channel (a process gone). */
  publish(channel: string, message: unknown): Promise<number>;
  /** How many subscribers listen on the channel now (across every process). */
  receivers(channel: string): Promise<number>;
  /** Returns the unsubscribe function (safe to call twice). */
  subscribe(channel: string, handler: BusHandler): () => void;
  close(): Promise<void>;
}

export type BusOptions = {
  /** Told about payloads that are not JSON, handlers that threw and subscribe failures. */
  onError?: (err: unknown, context: { channel: string; what: 'payload' | 'handler' | 'subscribe' }) => void;
};

/** One process: messages still go through JSON, so what works here works across Redis too. */
export function createMemoryBus(opts: BusOptions = {}): Bus {
  const channels = new Map<string, Set<BusHandler>>();
  const handlers = new Handlers(channels, opts.onError);
  return {
    async publish(channel, message) {
      const payload = encode(message);
      // Delivered on a later tick, as Redis would: a publisher never runs its subscribers re-entrantly.
      setImmediate(() => handlers.deliver(channel, payload));
      return channels.get(channel)?.size ?? 0;
    },
    receivers: async (channel) => channels.get(channel)?.size ?? 0,
    subscribe: (channel, handler) =>
      handlers.add(
        channel,
        handler,
        () => {},
        () => {},
      ),
    async close() {
      channels.clear();
    },
  };
}

/** Redis pub/sub over two connections: a subscribed connection can issue nothing but (P)SUBSCRIBE. */
export function createRedisBus(url: string, opts: BusOptions = {}): Bus {
  const pub = openRedis(url, { name: 'loupe-bus-pub' });
  const sub = openRedis(url, { name: 'loupe-bus-sub' });
  const channels = new Map<string, Set<BusHandler>>();
  const handlers = new Handlers(channels, opts.onError);
  const report = (channel: string) => (err: unknown) => opts.onError?.(err, { channel, what: 'subscribe' });
  sub.on('message', (channel: string, payload: string) => handlers.deliver(channel, payload));
  let closing: Promise<void> | null = null;

  return {
    publish: (channel, message) => whileReachable(pub, () => pub.publish(channel, encode(message))),
    async receivers(channel) {
      const [, n] = (await whileReachable(pub, () => pub.pubsub('NUMSUB', channel))) as [string, number | string];
      return Number(n);
    },
    // Both commands go down the one subscriber connection in order, so a quick
    // subscribe → unsubscribe → subscribe ends subscribed. ioredis re-subscribes after a reconnect.
    subscribe: (channel, handler) =>
      handlers.add(
        channel,
        handler,
        () => void sub.subscribe(channel).catch(report(channel)),
        () => void sub.unsubscribe(channel).catch(report(channel)),
      ),
    close: () =>
      (closing ??= (async () => {
        channels.clear();
        await Promise.allSettled([sub.quit(), pub.quit()]);
      })()),
  };
}

function encode(message: unknown): string {
  const payload = JSON.stringify(message);
  if (payload === undefined) throw new TypeError('A bus message must be JSON-serializable.');
  return payload;
}

class Handlers {
  constructor(
    private readonly channels: Map<string, Set<BusHandler>>,
    private readonly onError: BusOptions['onError'],
  ) {}

  add(channel: string, handler: BusHandler, first: () => void, last: () => void): () => void {
    let set = this.channels.get(channel);
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
      first();
    }
    // Wrapped, so the same function subscribed twice is two subscriptions with two unsubscribes.
    const entry: BusHandler = (message) => handler(message);
    set.add(entry);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const current = this.channels.get(channel);
      if (!current?.delete(entry) || current.size > 0) return;
      this.channels.delete(channel);
      last();
    };
  }

  deliver(channel: string, payload: string) {
    const set = this.channels.get(channel);
    if (!set || set.size === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(payload);
    } catch (err) {
      this.onError?.(err, { channel, what: 'payload' });
      return;
    }
    // A snapshot: handlers may (un)subscribe while they run.
    for (const handler of [...set]) {
      try {
        handler(message);
      } catch (err) {
        this.onError?.(err, { channel, what: 'handler' });
      }
    }
  }
}

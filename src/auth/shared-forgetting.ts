// Dropping a cached credential (sign-out, a member removed or changed, a token revoked, a key rotated)
// in every process that shares the bus, so a revoked credential stops working everywhere at once rather
// than when the other processes' 10-second caches run out.
import * as v from 'valibot';
import type { Bus } from '../bus.ts';
import type { CredentialResolver } from './credentials.ts';

const ForgetMessage = v.object({
  from: v.string(),
  hash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
  all: v.optional(v.boolean()),
});

/** The resolver whose forget and forgetAll also reach the other processes; stop() unsubscribes. */
export function shareForgetting(
  credentials: CredentialResolver,
  bus: Bus,
  channel: string,
  self: string,
): { resolver: CredentialResolver; stop: () => void } {
  const stop = bus.subscribe(channel, (message) => {
    const m = v.safeParse(ForgetMessage, message);
    if (!m.success || m.output.from === self) return;
    if (m.output.all) credentials.forgetAll();
    else if (m.output.hash) credentials.forget(m.output.hash);
  });
  const tell = (message: v.InferOutput<typeof ForgetMessage>) => void bus.publish(channel, message).catch(() => {});
  return {
    resolver: {
      resolve: credentials.resolve,
      forget(hash) {
        credentials.forget(hash);
        tell({ from: self, hash });
      },
      forgetAll() {
        credentials.forgetAll();
        tell({ from: self, all: true });
      },
    },
    stop,
  };
}

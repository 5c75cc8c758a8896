// The push sink's cut-off (src/http/push.ts), against a stand-in for uWS's response whose writes are taken
// or refused as each case says: uWS reports a socket writable as soon as the kernel takes some bytes, with
// megabytes still buffered for it, so only a write taken whole may count as having caught up.
import t from 'tap';
import type { HttpResponse } from 'uWebSockets.js';
import { MAX_BEHIND, writePush } from '../../src/http/push.ts';
import { reply, type PushSink } from '../../src/reply.ts';
import type { ResponseState } from '../../src/http/write.ts';

/** A response whose `write` answers `taken(n)` for its n-th write; calls any onWritable handler between
 *  writes when `writable` says so. */
function stream(taken: (n: number) => boolean) {
  let writable: ((offset: number) => boolean) | null = null;
  let closed = false;
  let n = 0;
  const res = {
    cork: (f: () => void) => (f(), res),
    writeStatus: () => res,
    writeHeader: () => res,
    write: () => taken(n++),
    onWritable: (h: (offset: number) => boolean) => ((writable = h), res),
    close: () => ((closed = true), res),
    end: () => res,
  };
  const state: ResponseState = {
    res: res as unknown as HttpResponse,
    aborted: false,
    done: false,
    status: 200,
    onAbort: [],
  };
  let sink: PushSink | null = null;
  const done = writePush(state, 200, [], reply({ push: (s) => ((sink = s), () => {}) }) as never, new Set(), () => {});
  return {
    sink: sink!,
    done,
    closed: () => closed,
    /** The socket took some bytes: what uWS reports to an onWritable handler. */
    wrote: () => void writable?.(0),
  };
}

const line = 'x'.repeat(4_096);

t.test(
  'a reader that reads, but never catches up, is cut off although its socket keeps becoming writable',
  async (t) => {
    const s = stream(() => false);
    let writes = 0;
    while (s.sink.write(line) && writes < 10_000) (writes++, s.wrote());
    t.ok(s.closed(), `cut off after ${writes} writes`);
    t.ok(writes * line.length <= MAX_BEHIND + 2 * line.length, 'within the allowance');
    await s.done;
  },
);

t.test('a reader that stops reading is cut off', async (t) => {
  const s = stream(() => false);
  let writes = 0;
  while (s.sink.write(line) && writes < 10_000) writes++;
  t.ok(s.closed(), `cut off after ${writes} writes`);
  await s.done;
});

t.test('a reader that catches up between bursts is not cut off', async (t) => {
  // Each burst of 200 writes (800 KB) is refused after its first; the next burst's first write is taken
  // whole: the reader drained everything meanwhile.
  const s = stream((n) => n % 200 === 0);
  let refused = 0;
  for (let i = 0; i < 2_000; i++) if (!s.sink.write(line)) refused++;
  t.equal(refused, 0, 'every write accepted by the sink');
  t.notOk(s.closed(), '8 MB written, never cut off');
  s.sink.end();
  await s.done;
});

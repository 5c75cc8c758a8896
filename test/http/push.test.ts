// The push sink's cut-off (src/http/push.ts), against a stand-in for uWS's response whose writes are taken
// or refused as each case says: uWS reports a socket writable as soon as the kernel takes some bytes, with
// megabytes still buffered for it, so only a write taken whole may count as having caught up. Then the
// budget that streams share (src/http/backlog.ts), and the setting that sizes it.
import t from 'tap';
import type { HttpResponse } from 'uWebSockets.js';
import { loadConfig } from '../../src/config.ts';
import { Backlog } from '../../src/http/backlog.ts';
import { MAX_BEHIND, writePush } from '../../src/http/push.ts';
import { reply, type PushSink } from '../../src/reply.ts';
import type { ResponseState } from '../../src/http/write.ts';

/** A response whose `write` answers `taken(n)` for its n-th write, on a server with `backlog` whose close
 *  ends the streams in `open`. */
function stream(taken: (n: number) => boolean, backlog = new Backlog(Infinity), open = new Set<() => void>()) {
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
  const push = reply({ push: (s) => ((sink = s), () => {}) }) as never;
  const done = writePush(state, 200, [], push, open, backlog, () => {});
  return {
    sink: sink!,
    done,
    closed: () => closed,
    /** The socket took some bytes: what uWS reports to an onWritable handler. */
    wrote: () => void writable?.(0),
    /** The client went away: what uWS reports to an onAborted handler. */
    abort: () => ((state.aborted = true), state.onAbort.forEach((f) => f())),
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

t.test('slow readers, each within its own allowance, are cut off once together over the budget', async (t) => {
  const backlog = new Backlog(MAX_BEHIND / 2);
  const slow = [stream(() => false, backlog), stream(() => false, backlog)];
  // Refused every third write and taken whole on the next: never counted behind, never cut off.
  const keepsUp = stream((n) => n % 3 !== 2, backlog);
  const cutAt: number[] = [];
  let most = 0;
  let refused = 0;
  for (let round = 1; round <= 1_000 && slow.some((s) => !s.closed()); round++) {
    for (const [i, s] of slow.entries()) if (!s.closed() && !s.sink.write(line)) cutAt[i] = round;
    if (!keepsUp.sink.write(line)) refused++;
    most = Math.max(most, backlog.held);
  }
  t.ok(
    slow.every((s) => s.closed()),
    `both slow readers cut off (rounds ${cutAt.join(', ')})`,
  );
  // The first goes when the two together pass the budget, each at a quarter of its own allowance; the
  // other, then alone, once it passes the budget by itself, still within its allowance.
  t.ok(cutAt[0]! * line.length <= MAX_BEHIND / 4 + 2 * line.length, 'the first cut off at half the budget');
  t.ok(cutAt[1]! * line.length < MAX_BEHIND, 'the second within its own allowance');
  t.ok(most <= backlog.limit + line.length, `held at most ${most} bytes`);
  t.equal(refused, 0, 'every write to the reader that keeps up accepted');
  t.notOk(keepsUp.closed(), 'the reader that keeps up is not cut off');
  t.equal(backlog.held, 0, 'the cut-off readers gave their shares back');
  keepsUp.sink.end();
  await Promise.all([...slow, keepsUp].map((s) => s.done));
  t.equal(backlog.held, 0);
});

t.test("a reader's share is given back when it catches up, and on every way its stream ends", async (t) => {
  const backlog = new Backlog(Infinity);
  const open = new Set<() => void>();
  const behind = (taken: (n: number) => boolean = () => false) => {
    const s = stream(taken, backlog, open);
    const before = backlog.held;
    for (let i = 0; i < 10; i++) s.sink.write(line);
    t.equal(backlog.held - before, 9 * line.length, 'counted behind: every write after the first refused');
    return s;
  };

  const catchesUp = behind((n) => n >= 10);
  catchesUp.sink.write(line);
  t.equal(backlog.held, 0, 'caught up: a write taken whole');
  catchesUp.sink.end();

  const ended = behind();
  ended.sink.end();
  t.equal(backlog.held, 0, 'the producer ended it');

  const gone = behind();
  gone.abort();
  t.equal(backlog.held, 0, 'the client went away');

  const cut = behind();
  while (cut.sink.write(line));
  t.ok(cut.closed(), 'cut off at its own allowance');
  t.equal(backlog.held, 0, 'cut off');

  behind();
  behind();
  for (const end of [...open]) end();
  t.equal(backlog.held, 0, 'the server closed (two streams)');
  t.equal(open.size, 0);
});

t.test('LIVE_BACKLOG_MB sizes the budget; a bad value is refused at start', async (t) => {
  t.equal(loadConfig({}).liveBacklogBytes, 256 * 1024 * 1024, 'default 256 MiB');
  t.equal(loadConfig({ LIVE_BACKLOG_MB: '64' }).liveBacklogBytes, 64 * 1024 * 1024);
  for (const bad of ['0', '-1', '1.5', 'lots', '268435456'])
    t.throws(() => loadConfig({ LIVE_BACKLOG_MB: bad }), /LIVE_BACKLOG_MB/, `refused: ${bad}`);
});

// The project actor's write path with a recording store (effects are injected, time is faked): group
// commits, answers only after commit, when a second flush starts beside one in flight, duplicates by id,
// failures reported to every waiting request, and checkpoints: deltas held until applied (merged), applied
// by settle() and at shutdown, kept on failure; late events' stored sessions looked up together, and only
// after a drain when a session the actor let go may be unwritten.
import t from 'tap';
import type { ActorStore, PendingLog } from '../../actors/project-actor.ts';
import { ProjectActor } from '../../actors/project-actor.ts';
import { createActorRegistry } from '../../actors/registry.ts';
import { sessionDeltas, visitorDeltas, type PendingFolds } from '../../actors/flush-rows.ts';
import { SESSION_GAP_MS, sessionIdFor, type StoredSpan } from '../../actors/sessionizer.ts';
import type { EnrichedEvent } from '../../src/ingest/enrich.ts';
import { enrichedRow } from '../support/enriched-row.ts';

function recordingStore(opts: { delayMs?: number; fail?: boolean; failCheckpoints?: number } = {}) {
  const stored = new Set<string>();
  const commits: { events: number; logs: PendingLog[] }[] = [];
  const overlap = { now: 0, most: 0 }; // commits in progress at once
  const checkpoints: PendingFolds[] = [];
  let nextLog = 0;
  let nextFold = 0;
  let failCheckpoints = opts.failCheckpoints ?? 0;
  const store: ActorStore = {
    async checkpoint(_projectId, pending) {
      await new Promise((r) => setTimeout(r, 2));
      if (failCheckpoints-- > 0) throw new Error('database down');
      checkpoints.push(pending);
    },
    async commit(_projectId, events, after) {
      overlap.most = Math.max(overlap.most, ++overlap.now);
      await new Promise((r) => setTimeout(r, opts.delayMs ?? 5));
      overlap.now--;
      if (opts.fail) throw new Error('database down');
      const inserted = new Set<string>();
      for (const e of events) if (!stored.has(e.id)) (stored.add(e.id), inserted.add(e.id));
      const { logs } = after(inserted);
      commits.push({ events: events.length, logs });
      const fresh = events.filter((e) => inserted.has(e.id));
      const fold =
        fresh.length > 0
          ? {
              journalId: String(++nextFold),
              sessions: sessionDeltas(fresh),
              visitors: visitorDeltas(fresh),
              counters: null,
            }
          : null;
      return { inserted, logs: logs.map((l) => ({ ...l, id: String(++nextLog), ts: new Date().toISOString() })), fold };
    },
  };
  return { store, stored, commits, checkpoints, overlap };
}

const row = enrichedRow;
const meta = { requestId: 'r', rejected: 0, rejectionLogs: [] };

t.test('concurrent requests share commits, and each answer follows its commit', async (t) => {
  const { store, stored, commits } = recordingStore({ delayMs: 20 });
  const actor = new ProjectActor('p', store);
  const answers = await Promise.all(
    Array.from({ length: 50 }, () => {
      const rows = [row(), row()];
      return actor.ingest(rows, meta).then((o) => ({ o, committed: rows.every((r) => stored.has(r.id)) }));
    }),
  );
  t.ok(
    answers.every((a) => a.committed && a.o.accepted === 2),
    'answered after its rows were committed',
  );
  t.ok(commits.length <= 3, `50 requests in ${commits.length} commits`);
  t.equal(
    commits.reduce((a, c) => a + c.events, 0),
    100,
  );
});

t.test('beside a flush in flight, the next starts once half as many rows wait, or when it commits', async (t) => {
  const rows = (n: number) => Array.from({ length: n }, () => row());
  const turn = () => new Promise(setImmediate);

  // Long enough that the first flush is still in flight two turns later on a loaded machine.
  const enough = recordingStore({ delayMs: 400 });
  const actor = new ProjectActor('p', enough.store, { maxConcurrentFlushes: 2 });
  const first = actor.ingest(rows(100), meta);
  await turn();
  const few = actor.ingest(rows(10), meta);
  await turn();
  t.equal(enough.overlap.most, 1, '10 rows do not start a flush beside 100');
  const more = actor.ingest(rows(40), meta);
  await Promise.all([first, few, more]);
  t.equal(enough.overlap.most, 2, '50 rows start the second flush while the first is in flight');
  t.same(
    enough.commits.map((c) => c.events),
    [100, 50],
  );

  const trickle = recordingStore({ delayMs: 30 });
  const quiet = new ProjectActor('p', trickle.store, { maxConcurrentFlushes: 2 });
  const big = quiet.ingest(rows(100), meta);
  await turn();
  t.same(
    await Promise.all([big, quiet.ingest(rows(10), meta)]),
    [
      { accepted: 100, duplicates: 0 },
      { accepted: 10, duplicates: 0 },
    ],
    'what never reaches half goes when the flush in flight commits',
  );
  t.equal(trickle.overlap.most, 1);
  t.same(
    trickle.commits.map((c) => c.events),
    [100, 10],
  );

  const small = recordingStore({ delayMs: 30 });
  const light = new ProjectActor('p', small.store, { maxConcurrentFlushes: 2 });
  const one = light.ingest(rows(1), meta);
  await turn();
  await Promise.all([one, light.ingest(rows(1), meta)]);
  t.equal(small.overlap.most, 2, 'one request beside one is half: light traffic waits for nothing');
});

t.test('duplicates: a retry and a repeat inside one flush count once', async (t) => {
  const { store, stored } = recordingStore();
  const actor = new ProjectActor('p', store);
  const first = row({ id: 'same' });
  const [a, b] = await Promise.all([actor.ingest([first], meta), actor.ingest([row({ id: 'same' })], meta)]);
  t.same(
    [a, b],
    [
      { accepted: 1, duplicates: 0 },
      { accepted: 0, duplicates: 1 },
    ],
  );
  t.same(await actor.ingest([row({ id: 'same' })], meta), { accepted: 0, duplicates: 1 });
  t.equal(stored.size, 1);
});

t.test('a bot verdict is written by the request that stored the event, not by a retry in the same flush', async (t) => {
  const { store, commits } = recordingStore();
  const actor = new ProjectActor('p', store);
  const bot = (id: string) => {
    const r = row({ id, visitor_id: 'crawler' });
    return {
      ...r,
      bot_score: 90,
      bot: { ...r.bot, score: 90, verdict: 'bot' as const, reasons: ['crawler' as const] },
    };
  };
  const [first, retry] = await Promise.all([actor.ingest([bot('crawl')], meta), actor.ingest([bot('crawl')], meta)]);
  t.same(
    [first, retry],
    [
      { accepted: 1, duplicates: 0 },
      { accepted: 0, duplicates: 1 },
    ],
    'one flush, the retry a duplicate',
  );
  t.equal(commits.length, 1);
  t.equal(commits[0]!.logs.filter((l) => l.kind === 'signals').length, 1, 'one verdict line');
});

t.test('sessions are assigned before the commit; bot verdicts and duplicates write lines', async (t) => {
  const { store, commits } = recordingStore();
  const actor = new ProjectActor('p', store);
  const r1 = row({ visitor_id: 'x', ts: '2026-01-01T10:00:00Z' });
  const r2 = row({ visitor_id: 'x', ts: '2026-01-01T10:20:00Z' });
  const r3 = row({ visitor_id: 'x', ts: '2026-01-01T11:00:00Z' });
  const suspect = row({
    visitor_id: 'b',
    bot_score: 60,
    bot: { ...r1.bot, score: 60, verdict: 'bot', reasons: ['headless'] },
  });
  await actor.ingest([r1, r2, r3, suspect], meta);
  t.equal(r1.session_id, r2.session_id, 'within 30 minutes');
  t.not(r2.session_id, r3.session_id, 'after a 40-minute gap');
  const lines = commits[0]!.logs;
  t.match(lines[0], { level: 'ok', kind: 'ingest', message: 'Accepted 4 of 4 events (0 duplicates, 0 rejected)' });
  t.match(
    lines.find((l) => l.kind === 'signals'),
    { level: 'warn', source: 'engine', visitor: 'b', data: { verdict: 'bot', score: 60 } },
  );
  t.equal(actor.logs.size, lines.length, 'stored lines enter the ring');
});

t.test(
  'live sessions and realtime stored before a restart are read back before the first event is placed',
  async (t) => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    const { store, commits } = recordingStore();
    let asked: number | null = null;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    store.liveState = async (_projectId, at) => {
      asked = at;
      await gate;
      return {
        sessions: [
          {
            id: 's_before',
            visitor: 'x',
            startedAt: now - 20 * 60_000,
            lastActivity: now - 5 * 60_000,
            pageviews: 3,
            events: 3,
            engagedMs: 0,
            entryPage: '/in',
            exitPage: '/out',
            entryAt: now - 20 * 60_000,
            exitAt: now - 5 * 60_000,
          },
        ],
        recent: [
          { visitor: 'x', ts: now - 8 * 60_000, path: '/in', country: 'DE', isPageview: true, human: true },
          { visitor: 'z', ts: now - 2 * 60_000, path: '/z', country: 'FR', isPageview: true, human: true },
        ],
      };
    };
    const actor = new ProjectActor('p', store, { now: () => now });
    t.equal(asked, now, 'asked what was live now');
    t.equal(actor.idle, false, 'not idle while it reads them');
    const first = row({ visitor_id: 'x', ts: new Date(now - 60_000).toISOString() });
    const second = row({ visitor_id: 'x', ts: new Date(now).toISOString(), name: 'signup' });
    const other = row({ visitor_id: 'y', ts: new Date(now).toISOString() });
    const answers = Promise.all([actor.ingest([first], meta), actor.ingest([second, other], meta)]);
    await new Promise((r) => setTimeout(r, 20));
    t.equal(commits.length, 0, 'batches wait for the read');
    release();
    t.same(await answers, [
      { accepted: 1, duplicates: 0 },
      { accepted: 2, duplicates: 0 },
    ]);
    t.same([first.session_id, second.session_id], ['s_before', 's_before'], 'the visitor goes on in their session');
    t.not(other.session_id, 's_before');
    t.match(actor.sessions.get('x'), { pageviews: 4, events: 5, entryPage: '/in', exitPage: '/' });
    t.equal(actor.realtime.online(now), 3, 'realtime holds the visitor of two minutes ago, and the two new events');
    t.same(
      actor.realtime.viewsPerMinute(now),
      [0, 1, 0, 0, 0, 0, 0, 1, 1, 1],
      'their pageviews by minute, and the new ones',
    );
  },
);

t.test('a shutdown while live state is read back writes the batches that waited for it', async (t) => {
  const { store, stored } = recordingStore();
  store.liveState = async () => {
    await new Promise((r) => setTimeout(r, 20));
    return { sessions: [], recent: [] };
  };
  const actor = new ProjectActor('p', store);
  const r = row();
  const answer = actor.ingest([r], meta);
  await actor.flush();
  t.ok(stored.has(r.id), 'stored by the time flush() resolves');
  t.same(await answer, { accepted: 1, duplicates: 0 });
});

t.test(
  'reload: what is queued is written first, then live state is read back in place of what the actor held',
  async (t) => {
    const { store, stored } = recordingStore({ delayMs: 20 });
    let reads = 0;
    store.liveState = async () => {
      reads++;
      // What the database holds by then: the visitor's session, with the pageview written before the read.
      return reads === 1
        ? { sessions: [], recent: [] }
        : {
            sessions: [
              {
                id: 's_db',
                visitor: 'x',
                startedAt: Date.now() - 60_000,
                lastActivity: Date.now() - 1_000,
                pageviews: 1,
                events: 1,
                engagedMs: 0,
                entryPage: '/',
                exitPage: '/',
                entryAt: null,
                exitAt: null,
              },
            ],
            recent: [],
          };
    };
    const actor = new ProjectActor('p', store);
    const first = row({ visitor_id: 'x' });
    const writing = actor.ingest([first], meta);
    await new Promise((r) => setTimeout(r, 5));
    const reloaded = actor.reload();
    const later = row({ visitor_id: 'x' });
    const after = actor.ingest([later], meta);
    await reloaded;
    t.ok(stored.has(first.id), 'the batch in flight was written before the read');
    t.equal(reads, 2);
    await Promise.all([writing, after]);
    t.equal(later.session_id, 's_db', 'an event that came meanwhile waited, and joined the session read back');
  },
);

t.test(
  'an actor made for its log ring reads nothing back; one whose read takes too long goes on without it',
  async (t) => {
    const { store } = recordingStore();
    let reads = 0;
    store.liveState = () => {
      reads++;
      return new Promise(() => {});
    }; // never answers
    const registry = createActorRegistry({
      store,
      restoreTimeoutMs: 30,
      onError: (e, during) => errors.push([e, during]),
    });
    const errors: [unknown, string][] = [];
    t.teardown(() => registry.stop());
    registry.logs('p');
    t.equal(reads, 0, 'a log reader costs no read');
    const r = row();
    t.same(
      await registry.get('q').ingest([r], meta),
      { accepted: 1, duplicates: 0 },
      'ingest went on after the timeout',
    );
    t.equal(reads, 1);
    t.match(errors, [[{ message: /not read back within 30 ms/ }, 'restore']]);
  },
);

t.test('live state that cannot be read back is reported; events go on in new sessions', async (t) => {
  const { store, stored } = recordingStore();
  store.liveState = async () => {
    throw new Error('database down');
  };
  const errors: [unknown, string][] = [];
  const actor = new ProjectActor('p', store, { onError: (e, during) => errors.push([e, during]) });
  const r = row({ visitor_id: 'x' });
  t.same(await actor.ingest([r], meta), { accepted: 1, duplicates: 0 });
  t.ok(stored.has(r.id) && r.session_id.startsWith('s_'), 'stored, in a session of its own');
  t.match(errors, [[{ message: 'database down' }, 'restore']]);
});

t.test('a failed commit fails every waiting request, and nothing is acknowledged', async (t) => {
  const { store } = recordingStore({ fail: true });
  const actor = new ProjectActor('p', store);
  const results = await Promise.allSettled([actor.ingest([row()], meta), actor.ingest([row()], meta)]);
  t.ok(results.every((r) => r.status === 'rejected'));
});

t.test('idle actors are dropped: 10,000 projects stay bounded', async (t) => {
  let clock = 0;
  const { store } = recordingStore({ delayMs: 0 });
  const registry = createActorRegistry({ store, now: () => clock, idleMs: 1000 });
  t.teardown(() => registry.stop());
  for (let i = 0; i < 10_000; i++) registry.get(`p${i}`);
  t.equal(registry.size(), 10_000);
  await registry.get('p1').ingest([row()], meta);
  await registry.get('p1').flush();
  clock = 500;
  t.equal(registry.sweep(), 0, 'nothing idle yet');
  clock = 1_600;
  registry.get('p2').lastActivity = 1_500;
  const dropped = registry.sweep();
  t.equal(dropped, 9_999, `all but the one active lately (dropped ${dropped})`);
  t.equal(registry.size(), 1);
});

t.test('checkpoints: deltas wait, merge several flushes into one write, and settle() applies them now', async (t) => {
  const { store, checkpoints } = recordingStore({ delayMs: 1 });
  const actor = new ProjectActor('p', store, { checkpointMs: 60_000 });
  await actor.ingest([row({ id: 'first', visitor_id: 'a' })], meta);
  await actor.ingest([row({ visitor_id: 'a' }), row({ visitor_id: 'b' })], meta);
  await actor.ingest([row({ id: 'first', visitor_id: 'a' })], meta); // a retry: nothing to fold
  t.equal(checkpoints.length, 0, 'held until a checkpoint');
  t.notOk(actor.idle, 'not idle while deltas are held');
  await actor.settle();
  t.equal(checkpoints.length, 1, 'one checkpoint');
  t.same(checkpoints[0]!.journalIds, ['1', '2'], 'both flushes, in commit order');
  t.same(
    checkpoints[0]!.merged.visitorRows().map((v) => v.id),
    ['a', 'b'],
    'merged as they committed: one row a visitor',
  );
  await actor.settle();
  t.equal(checkpoints.length, 1, 'nothing left: settle() writes nothing');
  t.ok(actor.idle);
});

t.test('checkpoints: the timer applies deltas without a read', async (t) => {
  const { store, checkpoints } = recordingStore({ delayMs: 1 });
  const actor = new ProjectActor('p', store, { checkpointMs: 20 });
  await actor.ingest([row()], meta);
  await new Promise((r) => setTimeout(r, 80));
  t.equal(checkpoints.length, 1);
  t.ok(actor.idle);
});

t.test('checkpoints: deltas committed while a checkpoint fails go after the failed ones', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { store, checkpoints } = recordingStore({ delayMs: 1 });
  let failNext = true;
  const inner = store.checkpoint;
  store.checkpoint = async (projectId, pending) => {
    if (!failNext) return inner(projectId, pending);
    failNext = false;
    await gate;
    throw new Error('database down');
  };
  const actor = new ProjectActor('p', store, { checkpointMs: 60_000 });
  await actor.ingest([row({ visitor_id: 'a', session_id: 's', path: '/first', ts: '2026-11-01T10:00:00.000Z' })], meta);
  const failing = actor.settle();
  // Committed while the checkpoint is under way: later, so its exit page must win once both are applied.
  await actor.ingest(
    [row({ visitor_id: 'a', session_id: 's', path: '/second', ts: '2026-11-01T10:00:00.000Z' })],
    meta,
  );
  release();
  await t.rejects(failing, /database down/);
  await actor.settle();
  t.equal(checkpoints.length, 1);
  t.same(checkpoints[0]!.journalIds, ['1', '2'], 'the failed flush ahead of the one since');
  t.match(
    checkpoints[0]!.merged.sessionRows(),
    [{ pageviews: 2, exit_page: '/second' }],
    'merged in commit order: the later pageview is the exit',
  );
});

t.test(
  'checkpoints: a failure keeps the deltas, in order, for the next try; flush() applies them at shutdown',
  async (t) => {
    const errors: unknown[] = [];
    const { store, checkpoints } = recordingStore({ delayMs: 1, failCheckpoints: 1 });
    const actor = new ProjectActor('p', store, { checkpointMs: 60_000, onError: (e) => errors.push(e) });
    await actor.ingest([row()], meta);
    await t.rejects(actor.settle(), /database down/, 'a read is told');
    await actor.ingest([row()], meta);
    await actor.flush();
    t.same(
      checkpoints.map((c) => c.journalIds),
      [['1', '2']],
      'the failed deltas, then the new ones',
    );
    t.same(errors, []);
  },
);

/** A store that also finds stored sessions for late events (ActorStore.findSessions): among the spans given
 *  and those of the events committed so far, the visitor's whose span widened by the gap holds the time,
 *  the nearest; each question recorded with the commits that had finished when it was asked. */
function withLookups(rec: ReturnType<typeof recordingStore>, spans: (StoredSpan & { visitor: string })[] = []) {
  const written: EnrichedEvent[] = [];
  const commit = rec.store.commit;
  rec.store.commit = async (projectId, events, after) => {
    const out = await commit(projectId, events, after);
    written.push(...events);
    return out;
  };
  const asked: { wanted: { visitor: string; at: number }[]; commits: number }[] = [];
  rec.store.findSessions = async (_projectId, wanted) => {
    asked.push({ wanted, commits: rec.commits.length });
    await new Promise((r) => setTimeout(r, 10));
    const all = new Map(spans.map((s) => [s.id, { ...s }]));
    for (const e of written) {
      const s = all.get(e.session_id);
      if (s) ((s.startedAt = Math.min(s.startedAt, e.at)), (s.lastActivity = Math.max(s.lastActivity, e.at)));
      else all.set(e.session_id, { id: e.session_id, visitor: e.visitor_id, startedAt: e.at, lastActivity: e.at });
    }
    return wanted.map(({ visitor, at }) => {
      const distance = (s: StoredSpan) => Math.max(0, s.startedAt - at, at - s.lastActivity);
      const near = [...all.values()].filter((s) => s.visitor === visitor && distance(s) <= SESSION_GAP_MS);
      near.sort((a, b) => distance(a) - distance(b));
      return near[0] ?? null;
    });
  };
  return { asked };
}

t.test('late events that come together are looked up together, without waiting for the flushes', async (t) => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
  const rec = recordingStore({ delayMs: 150 });
  const stored = Array.from({ length: 30 }, (_, i) => ({
    id: `s_stored${i}`,
    visitor: `late${i}`,
    startedAt: now - 3 * 3_600_000,
    lastActivity: now - 3 * 3_600_000 + 60_000,
  }));
  const { asked } = withLookups(rec, stored);
  const actor = new ProjectActor('p', rec.store, { now: () => now, maxConcurrentFlushes: 2 });
  // A flush in flight (150 ms) when the first late event comes.
  const current = actor.ingest([row({ visitor_id: 'now', ts: at(1) })], meta);
  await new Promise(setImmediate);
  const late = stored.map((s, i) => [
    row({ visitor_id: `now${i}`, ts: at(2) }),
    row({ visitor_id: s.visitor, ts: at(-175) }),
  ]);
  // One visitor's two late events in two batches, and a current event of theirs between them: the first
  // opens a session (none is stored), the second joins it, and the current one stays in its own.
  const first = row({ visitor_id: 'z', ts: at(-240) });
  const between = row({ visitor_id: 'z', ts: at(3) });
  const second = row({ visitor_id: 'z', ts: at(-230) });
  // A late event of w ten minutes before the actor began (looked up: nothing), then a current one five
  // minutes after it began: placed in that order they are one session, named after the first.
  const before = row({ visitor_id: 'w', ts: at(-10) });
  const after = row({ visitor_id: 'w', ts: at(5) });
  const answers = await Promise.all([
    ...late.map((rows) => actor.ingest(rows, meta)),
    actor.ingest([first], meta),
    actor.ingest([between], meta),
    actor.ingest([second], meta),
    actor.ingest([before], meta),
    actor.ingest([after], meta),
    current,
  ]);
  t.ok(
    answers.every((a) => a.accepted >= 1),
    'every batch answered',
  );
  t.ok(asked.length <= 3, `32 late events in ${asked.length} questions to the store`);
  t.equal(asked[0]!.commits, 0, 'the first asked while the flush before it was still in flight');
  t.same(
    late.map(([, r]) => r!.session_id),
    stored.map((s) => s.id),
    'each late event joined its stored session',
  );
  t.ok(late.every(([r]) => r!.session_id.startsWith('s_') && !r!.session_id.startsWith('s_stored')));
  t.ok(first.session_id.startsWith('s_'), 'the first late event of z opened a session');
  t.equal(second.session_id, first.session_id, 'the second joined it');
  t.not(between.session_id, first.session_id, 'the current event is in a session of its own');
  t.equal(before.session_id, sessionIdFor('w', `t:${before.at}`), "w's session is named after its first event");
  t.equal(after.session_id, before.session_id, 'placed after it, not before');
});

t.test('a late event of a visitor whose session was let go waits until that session is written', async (t) => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
  const rec = recordingStore({ delayMs: 100 });
  const { asked } = withLookups(rec);
  // Two sessions held at once: a third visitor's session lets the oldest kept aside go.
  const actor = new ProjectActor('p', rec.store, { now: () => now, maxSessions: 2, maxConcurrentFlushes: 2 });
  const visit = row({ visitor_id: 'a', ts: at(1) });
  const sent = [actor.ingest([visit], meta)];
  // Each visitor's first session is ended by a second one and kept aside; the third kept aside lets the
  // oldest, a's first, go (and c's first visit pushes a's second out of the live ones).
  for (const [v, minutes] of [
    ['a', 90],
    ['b', 1],
    ['b', 90],
    ['c', 1],
    ['c', 90],
  ] as const)
    sent.push(actor.ingest([row({ visitor_id: v, ts: at(minutes) })], meta));
  await new Promise(setImmediate);
  t.equal(rec.commits.length, 0, "a's first session is not written yet");
  // Within the gap of a's first session, which this actor no longer holds.
  const back = row({ visitor_id: 'a', ts: at(20) });
  sent.push(actor.ingest([back], meta));
  await Promise.all(sent);
  t.equal(asked.length, 1, 'the store was asked');
  t.ok(asked[0]!.commits >= 1, 'once the session let go was written');
  t.equal(back.session_id, visit.session_id, 'the late event joined the session it belongs to');
});

t.test('a session let go while a group of late events is placed is looked up again once written', async (t) => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
  const rec = recordingStore({ delayMs: 100 });
  const span = (visitor: string, hoursAgo: number) => ({
    id: `s_stored${visitor}`,
    visitor,
    startedAt: now - hoursAgo * 3_600_000,
    lastActivity: now - hoursAgo * 3_600_000 + 60_000,
  });
  const { asked } = withLookups(rec, [span('w', 3), span('x', 4), span('y', 5)]);
  const actor = new ProjectActor('p', rec.store, { now: () => now, maxSessions: 2, maxConcurrentFlushes: 2 });
  // v's and then w's first sessions are ended by second ones and kept aside (two: as many as the actor keeps).
  const visit = row({ visitor_id: 'w', ts: at(1) });
  const sent: Promise<unknown>[] = [];
  for (const [v, minutes] of [
    ['v', 1],
    ['v', 90],
  ] as const)
    sent.push(actor.ingest([row({ visitor_id: v, ts: at(minutes) })], meta));
  sent.push(actor.ingest([visit], meta), actor.ingest([row({ visitor_id: 'w', ts: at(90) })], meta));
  await new Promise(setImmediate);
  t.equal(rec.commits.length, 0, "w's first session is not written yet");
  // y's late event is looked up alone (its stored session, taken up, lets v's go); x's and w's come during
  // that lookup and make the next group. Placing x's late event takes x's stored session up, which lets
  // w's kept-aside session go; w's second row belongs to it, and the store did not hold it when asked.
  const lateY = row({ visitor_id: 'y', ts: at(-295) });
  const lateX = row({ visitor_id: 'x', ts: at(-235) });
  const lateW = row({ visitor_id: 'w', ts: at(-175) });
  const back = row({ visitor_id: 'w', ts: at(2) });
  sent.push(actor.ingest([lateY], meta), actor.ingest([lateX], meta), actor.ingest([lateW, back], meta));
  await Promise.all(sent);
  t.same(
    [lateY, lateX, lateW].map((r) => r.session_id),
    ['s_storedy', 's_storedx', 's_storedw'],
    'each late event joined its stored session',
  );
  t.equal(back.session_id, visit.session_id, "w's next row joined the session let go, once it was written");
  t.same(
    asked.map((a) => a.wanted.map((w) => w.visitor)),
    [['y'], ['x', 'w', 'w'], ['w', 'w']],
    'w asked again',
  );
  t.equal(asked[1]!.commits, 0, 'first while nothing was written');
  t.ok(asked[2]!.commits >= 1, 'then after the drain');
});

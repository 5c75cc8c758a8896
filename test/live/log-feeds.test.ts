// The log feeds against a real database: hundreds of SSE and long-poll subscribers cost one read a wake,
// not one a subscriber; each line is framed once; a line that reaches the ring after a larger id is neither
// missed by a live stream nor skipped by a resume; a feed made after lines were committed serves them from
// the database; shutdown ends every stream and answers every poll.
import t from 'tap';
import { LogRing, type LogLine } from '../../actors/log-ring.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import { createProject } from '../../src/db/projects.ts';
import { insertLogs, listLogs } from '../../src/db/logs.ts';
import { LogFeeds } from '../../src/live/log-feeds.ts';
import { openMigratedDatabase } from '../support/database.ts';

const db = await openMigratedDatabase(t);
await createProject(db.sql, { id: 'site', name: 'site', visibility: 'private' });
const ring = new LogRing();
let reads = 0;
const feeds = new LogFeeds({
  read: (projectId, filter, after, limit) => {
    reads++;
    return listLogs(db.sql, projectId, filter, after === null ? null : after.toString(), limit);
  },
  ring: () => ring,
  lingerMs: 50,
});
t.teardown(() => feeds.close());

const pending = (message: string, over: Partial<PendingLog> = {}): PendingLog => ({
  level: 'info',
  kind: 'ingest',
  source: 'api',
  message,
  data: {},
  visitor: null,
  session: null,
  ...over,
});
/** Commits lines; answers them as the ring gets them. */
const commit = async (...lines: PendingLog[]): Promise<LogLine[]> =>
  (await insertLogs(db.sql, 'site', lines)).map((r, i) => ({ ...lines[i]!, id: r.id, ts: r.ts.toISOString() }));
const until = async (ok: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return ok();
};
/** An SSE subscriber: what it was sent, as text. */
const subscribe = (after: bigint | null, filter = {}) => {
  const s = { text: '', ended: false, cleanup: () => {} };
  s.cleanup = feeds.stream('site', filter, after, {
    write: (text) => ((s.text += text), !s.ended),
    end: () => ((s.ended = true), s.cleanup()),
  });
  return s;
};
const idsOf = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]!);

await commit(pending('before any feed'));

t.test(
  'a feed made after lines were committed: a resume reads them; live lines come from one read a wake',
  async (t) => {
    const [old] = await listLogs(db.sql, 'site', {}, null, 1);
    const resumed = subscribe(BigInt(old!.id) - 1n);
    t.ok(await until(() => idsOf(resumed.text).includes(old!.id)), 'the line from before the feed, from the database');
    const streams = Array.from({ length: 300 }, () => subscribe(null));
    const filtered = Array.from({ length: 100 }, () => subscribe(null, { level: 'warn' }));
    await until(() => feeds.subscribers('site') === 401);
    const cursor = BigInt((await listLogs(db.sql, 'site', {}, null, 1))[0]!.id);
    const polls = Array.from({ length: 200 }, () =>
      feeds.poll('site', {}, cursor, 5_000, new AbortController().signal),
    );
    await new Promise((r) => setTimeout(r, 100));
    reads = 0;
    const sent: LogLine[] = [];
    for (let i = 0; i < 10; i++) {
      const lines = await commit(pending(`line ${i}`), pending(`warn ${i}`, { level: 'warn' }));
      sent.push(...lines);
      for (const l of lines) ring.append(l);
      await new Promise((r) => setTimeout(r, 20));
    }
    const want = sent.map((l) => l.id);
    t.ok(
      await until(() => streams.every((s) => idsOf(s.text).slice(-20).join() === want.join())),
      'every stream got every line, in order',
    );
    t.ok(
      filtered.every(
        (s) =>
          idsOf(s.text).slice(-10).join() ===
          sent
            .filter((l) => l.level === 'warn')
            .map((l) => l.id)
            .join(),
      ),
      'a filtered stream, its lines',
    );
    const polled = await Promise.all(polls);
    t.ok(
      polled.every((p) => p[0]?.id === want[0]),
      'every long-poll woke with the first new line',
    );
    t.ok(reads <= 12, `${reads} reads for 10 wakes and 600 subscribers`);
    for (const s of [resumed, ...streams, ...filtered]) s.cleanup();
    t.equal(feeds.subscribers('site'), 0);
  },
);

t.test('a line that reaches the ring after a larger id is sent, and a resume does not skip it', async (t) => {
  const live = subscribe(null);
  await until(() => feeds.subscribers('site') === 1);
  await new Promise((r) => setTimeout(r, 50));
  // A job's line is committed first but reaches the ring last; the ingest line after it wakes the feed.
  const [late] = await commit(pending('late job line', { kind: 'jobs', source: 'cron' }));
  const [next] = await commit(pending('ingest line'));
  ring.append(next!);
  t.ok(await until(() => idsOf(live.text).includes(next!.id)), 'the ingest line');
  t.same(idsOf(live.text).slice(-2), [late!.id, next!.id], 'with the late line before it, in id order');
  ring.append(late!);
  // A client that saw the line before the late one resumes from there: it gets the late line.
  const resumed = subscribe(BigInt(late!.id) - 1n);
  t.ok(await until(() => idsOf(resumed.text).includes(next!.id)));
  t.same(idsOf(resumed.text), [late!.id, next!.id]);
  const poll = await feeds.poll('site', {}, BigInt(late!.id) - 1n, 1_000, new AbortController().signal);
  t.same(
    poll.map((l) => l.id),
    [late!.id, next!.id],
    'a long-poll from there too',
  );
  live.cleanup();
  resumed.cleanup();
});

t.test('a long-poll past every line waits and answers [] on time; shutdown ends streams and polls', async (t) => {
  const huge = 9_223_372_036_854_775_807n;
  const started = Date.now();
  t.same(await feeds.poll('site', {}, huge, 300, new AbortController().signal), []);
  t.ok(Date.now() - started >= 290);
  const streams = Array.from({ length: 50 }, () => subscribe(null));
  await until(() => feeds.subscribers('site') === 50);
  const poll = feeds.poll('site', {}, huge, 20_000, new AbortController().signal);
  await new Promise((r) => setTimeout(r, 50));
  feeds.close();
  t.same(await poll, [], 'the poll answers at once');
  t.ok(
    streams.every((s) => s.ended),
    'every stream ended',
  );
  t.equal(feeds.size, 0);
});

t.test('lines within a tick go to a stream in one write; a new stream gets the newest 100 from memory', async (t) => {
  const own = new LogRing();
  let ownReads = 0;
  const ticked = new LogFeeds({
    read: (projectId, filter, after, limit) => {
      ownReads++;
      return listLogs(db.sql, projectId, filter, after === null ? null : after.toString(), limit);
    },
    ring: () => own,
    tickMs: 300,
  });
  t.teardown(() => ticked.close());
  const writes: string[] = [];
  const cleanup = ticked.stream('site', {}, null, {
    write: (text) => (writes.push(String(text)), true),
    end: () => {},
  });
  await until(() => ticked.subscribers('site') === 1);
  await new Promise((r) => setTimeout(r, 50));
  writes.length = 0;
  // The first line goes at once; the next ones, within the tick after it, together.
  const first = await commit(pending('tick 0'));
  own.append(first[0]!);
  t.ok(await until(() => writes.length === 1), 'the first line at once');
  const later: LogLine[] = [];
  for (let i = 1; i <= 120; i++) later.push(...(await commit(pending(`tick ${i}`))));
  for (const l of later) own.append(l);
  t.ok(await until(() => writes.join('').includes(`id: ${later.at(-1)!.id}\n`)), 'the later lines');
  t.ok(writes.length <= 3, `${writes.length} writes for 121 lines`);
  t.same(
    idsOf(writes.join('')),
    [first[0]!, ...later].map((l) => l.id),
    'in order, each once',
  );
  // The feed now holds over 100 lines: a new stream's first page needs no read.
  ownReads = 0;
  const fresh: string[] = [];
  const cleanupFresh = ticked.stream('site', {}, null, {
    write: (text) => (fresh.push(String(text)), true),
    end: () => {},
  });
  t.ok(await until(() => idsOf(fresh.join('')).length === 100));
  t.same(
    idsOf(fresh.join('')),
    later.slice(-100).map((l) => l.id),
    'the newest 100',
  );
  await new Promise((r) => setTimeout(r, 50));
  t.equal(ownReads, 0, 'read from memory');
  cleanup();
  cleanupFresh();
});

t.test('long-polls behind a new feed share one read of the gap', async (t) => {
  const cursor = BigInt((await listLogs(db.sql, 'site', {}, null, 1))[0]!.id);
  const gap = await commit(pending('gap 1'), pending('gap 2'), pending('gap 3'));
  // More lines than a feed takes when it starts: a feed made now (a server restarted, say) holds the newest
  // 1,000, above the polls' cursor.
  const after = await commit(...Array.from({ length: 1_000 }, (_, i) => pending(`after ${i}`)));
  let ownReads = 0;
  let firstPages = 0;
  const fresh = new LogFeeds({
    read: (projectId, filter, after, limit) => {
      ownReads++;
      if (after === null && limit === 100) firstPages++;
      return listLogs(db.sql, projectId, filter, after === null ? null : after.toString(), limit);
    },
    ring: () => new LogRing(),
  });
  t.teardown(() => fresh.close());
  const want = [...gap, ...after].slice(0, 100).map((l) => l.id);
  const polls = await Promise.all(
    Array.from({ length: 300 }, () => fresh.poll('site', {}, cursor, 2_000, new AbortController().signal)),
  );
  t.ok(
    polls.every((p) => p.map((l) => l.id).join() === want.join()),
    'every poll got the gap and what follows',
  );
  t.ok(ownReads <= 2, `${ownReads} reads (the newest lines, then the gap) for 300 polls`);
  // A poll from inside the gap, and a new stream, are served from memory.
  ownReads = 0;
  const again = await fresh.poll('site', {}, BigInt(gap[0]!.id), 1_000, new AbortController().signal);
  t.same(again[0]?.id, gap[1]!.id);
  const text: string[] = [];
  const cleanup = fresh.stream('site', {}, null, { write: (x) => (text.push(String(x)), true), end: () => {} });
  t.ok(await until(() => idsOf(text.join('')).length === 100));
  t.same(
    idsOf(text.join('')),
    after.slice(-100).map((l) => l.id),
    'the newest 100',
  );
  t.equal(firstPages, 0, 'no read of it');
  cleanup();
});

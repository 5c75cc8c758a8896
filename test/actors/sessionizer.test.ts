import t from 'tap';
import {
  SESSION_GAP_MS,
  Sessionizer,
  sessionDurationMs,
  sessionIdFor,
  type AssignInput,
  type StoredSession,
} from '../../actors/sessionizer.ts';

const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const MIN = 60_000;
const pv = (visitor: string, ts: number, path: string | null, extra: Partial<AssignInput> = {}): AssignInput => ({
  visitor,
  ts,
  name: 'pageview',
  path,
  ...extra,
});

t.test('the 30-minute gap', async (t) => {
  const s = new Sessionizer();
  const first = s.assign(pv('v1', T0, '/a'));
  t.equal(first.isNew, true);
  t.match(first.sessionId, /^s_[A-Za-z0-9_-]{16}$/);

  const cont = s.assign(pv('v1', T0 + 29 * MIN + 59_000, '/b'));
  t.equal(cont.isNew, false, '29:59 later continues');
  t.equal(cont.sessionId, first.sessionId);
  t.same(cont.ended, []);

  const exact = s.assign(pv('v1', T0 + 29 * MIN + 59_000 + SESSION_GAP_MS, '/c'));
  t.equal(exact.isNew, false, 'exactly 30:00 after the previous event still continues');

  const last = T0 + 29 * MIN + 59_000 + SESSION_GAP_MS;
  const next = s.assign(pv('v1', last + 30 * MIN + 1000, '/d'));
  t.equal(next.isNew, true, '30:01 later starts a new session');
  t.not(next.sessionId, first.sessionId);
  t.equal(next.ended.length, 1, 'the old session is handed back');
  t.same(next.ended[0], {
    id: first.sessionId,
    visitor: 'v1',
    startedAt: T0,
    lastActivity: last,
    pageviews: 3,
    events: 3,
    engagedMs: 0,
    entryPage: '/a',
    exitPage: '/c',
  });
  t.equal(s.size, 1);
});

t.test('entry, exit, pageviews, events and duration', async (t) => {
  const s = new Sessionizer();
  s.assign(pv('v', T0, '/home'));
  s.assign({ visitor: 'v', ts: T0 + 10_000, name: 'signup_click', path: '/home' });
  s.assign(pv('v', T0 + 20_000, '/pricing'));
  s.assign({ visitor: 'v', ts: T0 + 25_000, name: 'engagement', path: '/pricing', timeMs: 4000 });
  const r = s.assign(pv('v', T0 + 60_000, '/checkout'));
  t.same(r.session, {
    id: sessionIdFor('v', `t:${T0}`),
    visitor: 'v',
    startedAt: T0,
    lastActivity: T0 + 60_000,
    pageviews: 3,
    events: 4,
    engagedMs: 4000,
    entryPage: '/home',
    exitPage: '/checkout',
  });
  t.equal(sessionDurationMs(r.session!), 60_000);
});

t.test('out-of-order events join the session and keep entry/exit by event time', async (t) => {
  const s = new Sessionizer();
  const a = s.assign(pv('v', T0 + 5 * MIN, '/second'));
  const b = s.assign(pv('v', T0, '/first'));
  t.equal(b.sessionId, a.sessionId);
  t.equal(b.isNew, false);
  t.equal(b.session!.startedAt, T0, 'start moves back');
  t.equal(b.session!.lastActivity, T0 + 5 * MIN, 'last activity does not move back');
  t.equal(b.session!.entryPage, '/first');
  t.equal(b.session!.exitPage, '/second');
  t.equal(sessionDurationMs(b.session!), 5 * MIN);

  // Older than the session by more than the gap: a session of its own, kept aside; the live one stays.
  const late = s.assign(pv('v', T0 - SESSION_GAP_MS - 1, '/old'));
  t.match(late, { isNew: true, ended: [], session: { startedAt: T0 - SESSION_GAP_MS - 1, pageviews: 1 } });
  t.not(late.sessionId, a.sessionId);
  t.equal(s.get('v')!.pageviews, 2, 'the live session is unchanged');
  const later = s.assign(pv('v', T0 - SESSION_GAP_MS - 1 - 10 * MIN, '/older'));
  t.equal(later.sessionId, late.sessionId, 'a late event near it joins the session kept aside');
  t.equal(later.session!.pageviews, 2);
});

t.test('engagement extends but never starts a session', async (t) => {
  const s = new Sessionizer();
  const none = s.assign({ visitor: 'v', ts: T0, name: 'engagement', path: '/a', timeMs: 1000 });
  t.same(none, { sessionId: null, isNew: false, session: null, ended: [], reason: 'engagement-without-session' });
  t.equal(s.size, 0);

  const start = s.assign(pv('v', T0, '/a'));
  // Heartbeats every 20 minutes keep the session alive past 30 minutes after the pageview.
  s.assign({ visitor: 'v', ts: T0 + 20 * MIN, name: 'engagement', path: '/a', timeMs: 20 * MIN });
  const later = s.assign(pv('v', T0 + 45 * MIN, '/b'));
  t.equal(later.sessionId, start.sessionId);
  t.equal(later.session!.events, 2, 'engagement is not counted as an event');
  t.equal(later.session!.engagedMs, 20 * MIN);

  const afterGap = s.assign({ visitor: 'v', ts: T0 + 45 * MIN + SESSION_GAP_MS + 1, name: 'engagement', path: '/b' });
  t.equal(afterGap.session, null, 'an engagement after the gap does not start one either');
  t.same(afterGap.ended, [], 'nor ends the live one');
  t.equal(s.size, 1);
  const named = s.assign({ visitor: 'w', ts: T0, name: 'engagement', path: '/a', clientSession: 'cs', timeMs: 500 });
  t.equal(
    named.sessionId,
    sessionIdFor('w', 'c:cs'),
    'one naming its client session joins it, also when it arrives before its pageview',
  );
});

t.test('deterministic ids and client sessions', async (t) => {
  const a = new Sessionizer().assign(pv('v', T0, '/'));
  const b = new Sessionizer().assign(pv('v', T0, '/'));
  t.equal(a.sessionId, b.sessionId, 'a replay after a restart gets the same id');
  t.not(new Sessionizer().assign(pv('w', T0, '/')).sessionId, a.sessionId, 'other visitor, other id');

  const s = new Sessionizer();
  const c1 = s.assign(pv('v', T0, '/', { clientSession: 'cs1' }));
  const mid = new Sessionizer().assign(pv('v', T0 + 5 * MIN, '/x', { clientSession: 'cs1' }));
  t.equal(mid.sessionId, c1.sessionId, 'with a client session, a mid-session replay keeps the id');
  // The SDK starts a new session id itself after 30 idle minutes: the id it sends is the session.
  const c2 = s.assign(pv('v', T0 + 31 * MIN, '/', { clientSession: 'cs1' }));
  t.equal(c2.isNew, false);
  t.equal(c2.sessionId, c1.sessionId, 'the session the client names, past the gap too');
  const c0 = s.assign(pv('v', T0 - 3 * SESSION_GAP_MS, '/', { clientSession: 'cs0' }));
  t.equal(c0.sessionId, sessionIdFor('v', 'c:cs0'), 'a late event joins the session its client id names');
});

t.test('expire', async (t) => {
  const s = new Sessionizer();
  s.assign(pv('a', T0, '/'));
  s.assign(pv('b', T0 + 10 * MIN, '/'));
  t.same(s.expire(T0 + SESSION_GAP_MS), [], 'exactly 30 minutes idle is not expired');
  const gone = s.expire(T0 + SESSION_GAP_MS + 1);
  t.same(
    gone.map((x) => x.visitor),
    ['a'],
  );
  t.equal(s.size, 1);
  t.same(
    s.expire(T0 + 10 * MIN + SESSION_GAP_MS + 1).map((x) => x.visitor),
    ['b'],
  );
  t.equal(s.size, 0);
});

t.test('bounded by maxSessions, oldest activity evicted first (to within 30 s)', async (t) => {
  const s = new Sessionizer({ maxSessions: 3 });
  s.assign(pv('a', T0, '/'));
  s.assign(pv('b', T0 + 1000, '/'));
  s.assign(pv('c', T0 + 2000, '/'));
  s.assign(pv('a', T0 + 31_000, '/again')); // a is now the most recent
  const r = s.assign(pv('d', T0 + 32_000, '/'));
  t.same(
    r.ended.map((x) => x.visitor),
    ['b'],
    'b had the oldest activity',
  );
  t.equal(s.size, 3);
  t.equal(s.get('b'), null);

  // Activity within 30 s of where an entry sits leaves it there: the order is activity to within 30 s.
  const near = new Sessionizer({ maxSessions: 2 });
  near.assign(pv('a', T0, '/'));
  near.assign(pv('b', T0 + 1000, '/'));
  near.assign(pv('a', T0 + 20_000, '/again'));
  t.same(
    near.assign(pv('c', T0 + 21_000, '/')).ended.map((x) => x.visitor),
    ['a'],
    'a had not moved yet',
  );
  t.equal(near.get('b')?.lastActivity, T0 + 1000);

  const big = new Sessionizer({ maxSessions: 100 });
  let evicted = 0;
  for (let i = 0; i < 10_000; i++) evicted += big.assign(pv(`v${i}`, T0 + i, '/')).ended.length;
  t.equal(big.size, 100);
  t.equal(evicted, 9_900, 'every evicted session is handed back');
  t.equal(big.drain().length, 100);
  t.equal(big.size, 0);
});

t.test('returned sessions are copies', async (t) => {
  const s = new Sessionizer();
  const r = s.assign(pv('v', T0, '/'));
  r.session!.pageviews = 99;
  t.equal(s.get('v')!.pageviews, 1);
});

t.test('place() decides every event as assign() does, without the copies', async (t) => {
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const byAssign = new Sessionizer({ maxSessions: 5 });
  const byPlace = new Sessionizer({ maxSessions: 5 });
  let at = T0;
  const names = ['pageview', 'pageview', 'signup', 'engagement'];
  for (let i = 0; i < 5_000; i++) {
    // Mostly forward in time, sometimes past the gap, sometimes far back (late): eight visitors, five live at most.
    at += rand() < 0.05 ? SESSION_GAP_MS + 1 : Math.floor(rand() * 120_000);
    const ts = rand() < 0.03 ? at - 3 * SESSION_GAP_MS : at;
    const input = {
      visitor: `v${Math.floor(rand() * 8)}`,
      ts,
      name: names[Math.floor(rand() * names.length)]!,
      path: `/p${i % 3}`,
      clientSession: rand() < 0.2 ? 'c1' : null,
      timeMs: 500,
    };
    const a = byAssign.assign(input);
    const p = byPlace.place(input);
    const placed = typeof p === 'object' ? p.session.id : p;
    const assigned = a.sessionId ?? a.reason;
    if (placed !== assigned) return t.fail(`event ${i}: place ${placed}, assign ${assigned}`);
    // The dwell verdict is the live session's (a late event's session kept aside has none).
    const live = byPlace.get(input.visitor)?.id === placed;
    if (typeof p === 'object' && live && p.uniform !== byAssign.uniformDwell(input.visitor))
      return t.fail(`event ${i}: place's dwell verdict differs`);
  }
  t.same(byPlace.drain(), byAssign.drain(), 'and the same live sessions, numbers included');
});

t.test("uniform dwell: the rhythm of a session's pageviews", async (t) => {
  const s = new Sessionizer();
  const at = (visitor: string, seconds: number[]) => {
    for (const sec of seconds) s.place(pv(visitor, T0 + sec * 1000, '/p'));
  };
  at('script', [0, 10, 20]);
  t.equal(s.uniformDwell('script'), null, 'two dwell times: not enough to tell');
  at('script', [30]);
  t.equal(s.uniformDwell('script'), true, 'three of 10 s each');
  at('reader', [0, 4, 40, 52, 200]);
  t.equal(s.uniformDwell('reader'), false, 'a person reads for very different times');
  s.place({ visitor: 'reader', ts: T0 + 201_000, name: 'click', path: '/p' });
  s.place({ visitor: 'reader', ts: T0 + 202_000, name: 'engagement', path: '/p', timeMs: 5000 });
  t.equal(s.uniformDwell('reader'), false, 'only pageviews count');
  at('late', [0, 10, 20, 30]);
  s.place(pv('late', T0 + 5_000, '/p'));
  t.equal(s.uniformDwell('late'), true, 'a pageview arriving out of order tells nothing of a dwell');
  at('late', [45, 80, 81, 160, 200, 202, 300, 400]);
  at('late', [410, 420, 430, 440, 450, 460, 470, 480]);
  t.equal(s.uniformDwell('late'), true, 'the last eight dwell times decide');
  t.equal(s.uniformDwell('nobody'), null);
});

t.test('restore: sessions stored before a restart are live again, as they were', async (t) => {
  const stored = (
    visitor: string,
    id: string,
    startMin: number,
    lastMin: number,
    extra: Partial<StoredSession> = {},
  ): StoredSession => ({
    id,
    visitor,
    startedAt: T0 + startMin * MIN,
    lastActivity: T0 + lastMin * MIN,
    pageviews: 2,
    events: 3,
    engagedMs: 0,
    entryPage: '/in',
    exitPage: '/out',
    entryAt: T0 + startMin * MIN,
    exitAt: T0 + lastMin * MIN,
    ...extra,
  });
  const s = new Sessionizer();
  s.place(pv('here', T0 + 59 * MIN, '/now'));
  const taken = s.restore(
    [
      stored('old', 's_old', 0, 25), // 35 minutes before now: past the gap
      stored('v', 's_v1', 10, 40),
      stored('v', 's_v2', 45, 58), // the visitor's latest wins
      stored('quiet', 's_quiet', 50, 55, {
        pageviews: 0,
        entryPage: null,
        exitPage: null,
        entryAt: null,
        exitAt: null,
      }),
      stored('here', 's_stored', 40, 50), // live here already: kept as it is
    ],
    T0 + 60 * MIN,
  );
  t.equal(taken, 2);
  t.equal(s.get('old'), null);
  t.equal(s.get('here')?.startedAt, T0 + 59 * MIN, 'a live session here wins');

  const next = s.assign(pv('v', T0 + 61 * MIN, '/next'));
  t.same(
    { id: next.sessionId, isNew: next.isNew },
    { id: 's_v2', isNew: false },
    'the next event joins the stored session',
  );
  t.same(
    next.session,
    {
      id: 's_v2',
      visitor: 'v',
      startedAt: T0 + 45 * MIN,
      lastActivity: T0 + 61 * MIN,
      pageviews: 3,
      events: 4,
      engagedMs: 0,
      entryPage: '/in',
      exitPage: '/next',
    },
    'its numbers go on from the stored ones',
  );
  s.assign(pv('v', T0 + 44 * MIN, '/earlier'));
  t.equal(s.get('v')?.entryPage, '/earlier', 'a pageview before the stored entry becomes the entry');
  s.assign(pv('v', T0 + 50 * MIN, '/between'));
  t.same([s.get('v')?.entryPage, s.get('v')?.exitPage], ['/earlier', '/next'], 'one between them is neither');

  const quiet = s.assign(pv('quiet', T0 + 62 * MIN, '/first'));
  t.same(
    [quiet.sessionId, quiet.session?.entryPage, quiet.session?.exitPage],
    ['s_quiet', '/first', '/first'],
    'a session without pageviews takes its first',
  );
  t.equal(s.assign(pv('old', T0 + 62 * MIN, '/back')).isNew, true, 'a visitor whose session had ended opens a new one');
});

t.test('restore keeps the cap: the least recently active go first', async (t) => {
  const s = new Sessionizer({ maxSessions: 2 });
  const at = (visitor: string, min: number): StoredSession => ({
    id: `s_${visitor}`,
    visitor,
    startedAt: T0 + min * MIN,
    lastActivity: T0 + min * MIN,
    pageviews: 1,
    events: 1,
    engagedMs: 0,
    entryPage: '/',
    exitPage: '/',
    entryAt: T0 + min * MIN,
    exitAt: T0 + min * MIN,
  });
  s.restore([at('c', 20), at('a', 10), at('b', 15)], T0 + 25 * MIN);
  t.same(
    s.drain().map((x) => x.visitor),
    ['b', 'c'],
  );
});

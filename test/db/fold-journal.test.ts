// The fold journal between processes: a flush journals its session and visitor deltas; a checkpoint or a
// recovery applies each journal row exactly once (whoever deletes it applies it); a recovery takes only
// the rows of owners whose heartbeat has stopped, or of every other owner when it is the only process.
import t from 'tap';
import { createEventStore } from '../../src/db/event-store.ts';
import { PendingFolds } from '../../actors/flush-rows.ts';
import { signalsFrom, signalsText } from '../../src/db/fold-journal.ts';
import type { BotSignals } from '../../src/ingest/bot-score.ts';
import { createProject } from '../../src/db/projects.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const sql = db.sql;
const a = createEventStore(sql, { owner: 'process-a', embedded: db.embedded });
const b = createEventStore(sql, { owner: 'process-b', embedded: db.embedded });
await a.ensurePartition(new Date());
await createProject(sql, { id: 'p', name: 'p', visibility: 'private' });
const noLines = () => ({ logs: [], counters: { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 } });
const at = (s: number) => new Date(Date.now() - 600_000 + s * 1000).toISOString();
const sessions = () => sql<{ id: string; pageviews: number; events: number; exit_page: string }[]>`
  select id, pageviews, events, exit_page from sessions where project_id = 'p' order by id`;
const visitors = () =>
  sql<{ id: string; traits: unknown }[]>`select id, traits from visitors where project_id = 'p' order by id`;

t.test('a live owner keeps its rows; a silent one loses them to another process, once', async (t) => {
  await a.heartbeat();
  await b.heartbeat();
  const first = await a.commit(
    'p',
    [
      enrichedRow({ id: 'e1', visitor_id: 'v1', session_id: 's1', ts: at(0), path: '/a', traits: { plan: 'free' } }),
      enrichedRow({ id: 'e2', visitor_id: 'v1', session_id: 's1', ts: at(5), path: '/b' }),
      enrichedRow({ id: 'e3', visitor_id: 'v2', session_id: 's2', ts: at(9), name: 'signup' }),
    ],
    noLines,
  );
  t.ok(first.fold, 'the flush journaled its deltas');
  t.same(await sessions(), [], 'sessions wait for a checkpoint');

  t.equal(await b.recover({ onlyProcess: false, graceSeconds: 60 }), 0, 'a live owner keeps its rows');
  t.same(await sessions(), []);
  t.equal(await b.recover({ onlyProcess: false, graceSeconds: 0 }), 1, 'a silent owner loses them');
  t.same(
    (await sessions()).map((r) => ({ ...r })),
    [
      { id: 's1', pageviews: 2, events: 0, exit_page: '/b' },
      { id: 's2', pageviews: 0, events: 1, exit_page: null },
    ],
  );
  t.same(
    (await visitors()).map((r) => ({ ...r })),
    [
      { id: 'v1', traits: { plan: 'free' } },
      { id: 'v2', traits: {} },
    ],
  );

  await a.checkpoint('p', PendingFolds.of([first.fold!]));
  t.same(
    (await sessions()).map((r) => r.pageviews),
    [2, 0],
    'the owner, alive after all, applies nothing twice',
  );

  await a.heartbeat();
  const second = await a.commit(
    'p',
    [enrichedRow({ id: 'e4', visitor_id: 'v1', session_id: 's1', ts: at(20), path: '/c', traits: { seats: 3 } })],
    noLines,
  );
  const third = await a.commit(
    'p',
    [enrichedRow({ id: 'e4', visitor_id: 'v1', session_id: 's1', ts: at(20) })],
    noLines,
  );
  t.equal(third.fold, null, 'a duplicate journals nothing');
  await a.checkpoint('p', PendingFolds.of([second.fold!]));
  t.same(
    (await sessions()).map((r) => ({ ...r })),
    [
      { id: 's1', pageviews: 3, events: 0, exit_page: '/c' },
      { id: 's2', pageviews: 0, events: 1, exit_page: null },
    ],
    'a later flush adds to the session once',
  );
  t.same((await visitors())[0]!.traits, { plan: 'free', seats: 3 }, 'traits merge');
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from fold_journal`;
  t.equal(left!.n, 0, 'nothing left in the journal');
});

t.test("alone (no Redis), a process applies every other owner's rows at start", async (t) => {
  await a.heartbeat();
  await a.commit('p', [enrichedRow({ id: 'e5', visitor_id: 'v3', session_id: 's3', ts: at(30) })], noLines);
  t.equal(await b.recover({ onlyProcess: false }), 0, 'beside other processes, a fresh heartbeat is respected');
  t.equal(await b.recover({ onlyProcess: true }), 1, "alone, the previous life's rows are applied at once");
  t.same(
    (await sessions()).map((r) => r.id),
    ['s1', 's2', 's3'],
  );
  const [owners] = await sql<{ n: number }[]>`select count(*)::int as n from fold_owners where owner = 'process-a'`;
  t.equal(owners!.n, 0, "the gone owner's heartbeat is forgotten");
});

t.test('the hourly ingest counters go through the journal: added once, by a checkpoint or by a recovery', async (t) => {
  const counts = async () =>
    (
      await sql<{ accepted: number; duplicates: number; rejected: number; rate_limited: number }[]>`
    select sum(accepted)::int as accepted, sum(duplicates)::int as duplicates, sum(rejected)::int as rejected,
           sum(rate_limited)::int as rate_limited from ingest_counters where project_id = 'p'`
    ).map((r) => ({ ...r }))[0];
  const counted =
    (c: Partial<{ accepted: number; duplicates: number; rejected: number; rateLimited: number }>) => () => ({
      logs: [],
      counters: { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0, ...c },
    });
  await sql`delete from ingest_counters where project_id = 'p'`;
  await a.heartbeat();
  const fresh = await a.commit(
    'p',
    [enrichedRow({ id: 'c1', visitor_id: 'v9', session_id: 's9', ts: at(40) })],
    counted({ accepted: 1, rejected: 2 }),
  );
  const dupes = await a.commit(
    'p',
    [enrichedRow({ id: 'c1', visitor_id: 'v9', session_id: 's9', ts: at(40) })],
    counted({ duplicates: 1, rateLimited: 1 }),
  );
  t.ok(dupes.fold, 'a flush with counts but no new event journals its counts');
  t.same(dupes.fold!.sessions, [], 'and no session delta');
  t.same(
    await counts(),
    { accepted: null, duplicates: null, rejected: null, rate_limited: null },
    'nothing counted before a checkpoint',
  );
  await a.checkpoint('p', PendingFolds.of([fresh.fold!, dupes.fold!]));
  t.same(
    await counts(),
    { accepted: 1, duplicates: 1, rejected: 2, rate_limited: 1 },
    'both flushes counted, summed into their hour',
  );
  await a.checkpoint('p', PendingFolds.of([fresh.fold!, dupes.fold!]));
  t.same(
    await counts(),
    { accepted: 1, duplicates: 1, rejected: 2, rate_limited: 1 },
    'a second checkpoint of the same entries adds nothing',
  );

  // A process that dies with journaled counts: another one recovers them, once.
  await a.commit(
    'p',
    [enrichedRow({ id: 'c2', visitor_id: 'v9', session_id: 's9', ts: at(41) })],
    counted({ accepted: 1 }),
  );
  await a.commit('p', [], counted({ rateLimited: 3 }));
  t.equal(await b.recover({ onlyProcess: true }), 2, 'both journal rows recovered');
  t.same(await counts(), { accepted: 2, duplicates: 1, rejected: 2, rate_limited: 4 }, 'recovered counts added');
  t.equal(await b.recover({ onlyProcess: true }), 0, 'and not again');
});

t.test(
  'a checkpoint whose held deltas were partly applied by a recovery applies the rest from their events, once',
  async (t) => {
    const pageviews = async (id: string) =>
      (
        await sql<{ pageviews: number; exit_page: string }[]>`
    select pageviews, exit_page from sessions where project_id = 'p' and id = ${id}`
      ).map((r) => ({ ...r }))[0];
    await a.heartbeat();
    const early = await a.commit(
      'p',
      [enrichedRow({ id: 'h1', visitor_id: 'v7', session_id: 's7', ts: at(50), path: '/one' })],
      noLines,
    );
    t.equal(
      await b.recover({ onlyProcess: false, graceSeconds: 0 }),
      1,
      'another process takes process-a for dead and applies its row',
    );
    await a.heartbeat();
    const late = await a.commit(
      'p',
      [
        enrichedRow({
          id: 'h2',
          visitor_id: 'v7',
          session_id: 's7',
          ts: at(51),
          path: '/two',
          traits: { plan: 'team' },
        }),
        enrichedRow({ id: 'h3', visitor_id: 'v7', session_id: 's7', ts: at(52), path: '/three' }),
      ],
      () => ({ logs: [], counters: { accepted: 2, duplicates: 0, rejected: 1, rateLimited: 0 } }),
    );
    const counted = async () =>
      (
        await sql<{ accepted: number; rejected: number }[]>`
    select coalesce(sum(accepted), 0)::int as accepted, coalesce(sum(rejected), 0)::int as rejected
    from ingest_counters where project_id = 'p'`
      ).map((r) => ({ ...r }))[0]!;
    const before = await counted();
    // process-a held both flushes merged: the first must not be applied again, the second must be.
    await a.checkpoint('p', PendingFolds.of([early.fold!, late.fold!]));
    t.same(await pageviews('s7'), { pageviews: 3, exit_page: '/three' }, 'each flush applied once');
    const [v7] = await sql<{ traits: unknown }[]>`select traits from visitors where project_id = 'p' and id = 'v7'`;
    t.same(v7!.traits, { plan: 'team' }, 'the visitor facts journaled with the second flush are applied');
    t.same(await counted(), { accepted: before.accepted + 2, rejected: before.rejected + 1 }, 'its counts added once');
    await a.checkpoint('p', PendingFolds.of([early.fold!, late.fold!]));
    t.same(await pageviews('s7'), { pageviews: 3, exit_page: '/three' }, 'and not again');
    t.same(await counted(), { accepted: before.accepted + 2, rejected: before.rejected + 1 }, 'counts not again');
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from fold_journal`;
    t.equal(left!.n, 0, 'nothing left in the journal');
  },
);

t.test("a checkpoint bigger than one statement's piece applies every row", async (t) => {
  await a.heartbeat();
  const many = Array.from({ length: 1_234 }, (_, i) =>
    enrichedRow({
      id: `m${i}`,
      visitor_id: `mv${i % 1_100}`,
      session_id: `ms${i % 1_200}`,
      ts: at(60 + (i % 50)),
      path: `/m/${i}`,
    }),
  );
  const flushes = [await a.commit('p', many.slice(0, 700), noLines), await a.commit('p', many.slice(700), noLines)];
  await a.checkpoint('p', PendingFolds.of(flushes.map((f) => f.fold!)));
  const [s] = await sql<{ n: number; pageviews: number }[]>`
    select count(*)::int as n, sum(pageviews)::int as pageviews from sessions where project_id = 'p' and id like 'ms%'`;
  const [v] = await sql<
    { n: number }[]
  >`select count(*)::int as n from visitors where project_id = 'p' and id like 'mv%'`;
  t.same(
    { ...s },
    { n: 1_200, pageviews: 1_234 },
    'every session, every pageview once, across three pieces of sessions',
  );
  t.equal(v!.n, 1_100, 'every visitor, across three pieces of visitors');
});

t.test("a recovery waits for a project's deletion and then writes nothing for it", async (t) => {
  // On PostgreSQL the recovery waits for the project's row lock; on the embedded database, whose one
  // connection the deletion holds, it waits its turn for the connection. Either way it runs after the
  // deletion has committed, and must then write nothing for the project.
  await createProject(sql, { id: 'doomed', name: 'doomed', visibility: 'private' });
  const c = createEventStore(sql, { owner: 'process-c', embedded: db.embedded });
  await c.heartbeat();
  await c.commit('doomed', [enrichedRow({ id: 'd1', visitor_id: 'dv', session_id: 'ds', ts: at(0) })], noLines);
  const deletion = await sql.reserve();
  let recovered: number | null = null;
  let recovery: Promise<number> | undefined;
  try {
    await deletion`begin`;
    await deletion`select id from projects where id = 'doomed' for update`; // what the deletion does first
    recovery = b.recover({ onlyProcess: true }).then((n) => (recovered = n));
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(recovered, null, 'the recovery waits for the project the deletion holds');
    await deletion`select loupe_delete_project_rows('doomed')`;
    await deletion`delete from projects where id = 'doomed'`;
    await deletion`commit`;
  } finally {
    deletion.release();
  }
  t.equal(await recovery, 0, 'then finds the project gone, and its rows with it');
  const [left] = await sql<{ sessions: number; visitors: number; journal: number }[]>`
    select (select count(*)::int from sessions where project_id = 'doomed') as sessions,
      (select count(*)::int from visitors where project_id = 'doomed') as visitors,
      (select count(*)::int from fold_journal where project_id = 'doomed') as journal`;
  t.same({ ...left }, { sessions: 0, visitors: 0, journal: 0 }, 'no session or visitor of the deleted project');
});

t.test(
  'a recovery claims only the rows of projects it holds: a project gone meanwhile gets no session or visitor',
  async (t) => {
    for (const id of ['gone', 'kept']) await createProject(sql, { id, name: id, visibility: 'private' });
    const d = createEventStore(sql, { owner: 'process-d', embedded: db.embedded });
    await d.heartbeat();
    await d.commit('gone', [enrichedRow({ id: 'g1', visitor_id: 'gv', session_id: 'gs', ts: at(0) })], noLines);
    await d.commit('kept', [enrichedRow({ id: 'k1', visitor_id: 'kv', session_id: 'ks', ts: at(0) })], noLines);
    // The project's row alone, as if it went between the journal's listing and the claim (a real deletion
    // takes the journal rows too; this leaves one behind to show the claim passes it by).
    await sql`delete from projects where id = 'gone'`;
    t.equal(await b.recover({ onlyProcess: true }), 1, "the held project's row is applied");
    const [n] = await sql<{ gone: number; kept: number; journal: number }[]>`
    select (select count(*)::int from sessions where project_id = 'gone') + (select count(*)::int from visitors where project_id = 'gone') as gone,
      (select count(*)::int from sessions where project_id = 'kept') as kept,
      (select count(*)::int from fold_journal where project_id = 'gone') as journal`;
    t.same({ ...n }, { gone: 0, kept: 1, journal: 1 }, 'nothing written for the gone project; its row left unclaimed');
    await sql`delete from fold_journal where project_id = 'gone'`;
  },
);

t.test(
  'bot signals are journaled as six letters when they have their usual form, and read back the same',
  async (t) => {
    const usual = {
      headless: true,
      webdriver: null,
      datacenterAsn: false,
      pointerEvents: null,
      uaMismatch: false,
      uniformDwell: true,
    };
    t.equal(signalsText(usual), 'tnfnft');
    t.same(signalsFrom('tnfnft'), usual);
    t.same(Object.keys(signalsFrom('nnnnnn') as object), Object.keys(usual), "in the members' order");
    const { uniformDwell: _u, ...short } = usual;
    for (const other of [
      null,
      {},
      [],
      'tnfnft',
      short,
      { ...usual, extra: true },
      {
        webdriver: null,
        headless: true,
        datacenterAsn: false,
        pointerEvents: null,
        uaMismatch: false,
        uniformDwell: true,
      },
      { ...usual, headless: 1 },
    ]) {
      t.equal(signalsText(other), null, `${JSON.stringify(other)} is journaled as it is`);
    }
    t.same(signalsFrom(short), short, 'a value journaled as it is reads as it is');
  },
);

t.test(
  'a recovery writes every visitor and session column a checkpoint writes, the facts events do not keep included',
  async (t) => {
    for (const id of ['by-checkpoint', 'by-recovery'])
      await createProject(sql, { id, name: id, visibility: 'private' });
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const usual = {
      headless: false,
      webdriver: null,
      datacenterAsn: false,
      pointerEvents: null,
      uaMismatch: null,
      uniformDwell: null,
    };
    const facts = Array.from({ length: 60 }, (_, i) => ({
      i,
      visitor_id: `v${i % 9}`,
      session_id: `s${i % 9}-${i % 2}`,
      ts: at(i),
      path: pick(['/', '/pricing']),
      postal_code: pick([null, '10115']),
      timezone: pick([null, 'Europe/Berlin']),
      latitude: pick([null, 0, 52.52]),
      longitude: pick([null, 0, 13.405]),
      traits: pick([{}, { plan: 'pro' }]),
      experiments: pick<Record<string, string>>([{}, { hero: 'b' }]),
      bot_score: pick([0, 30, 60]), // Stored values of other shapes are journaled as they are.
      bot_signals: pick([
        {},
        usual,
        { ...usual, headless: true, uniformDwell: false },
        { uniformDwell: true, headless: null },
      ]) as BotSignals,
    }));
    const flushes = (project: string) =>
      [facts.slice(0, 25), facts.slice(25)].map((part) =>
        part.map(({ i, ...f }) => enrichedRow({ ...f, project_id: project, id: `${project}-${i}` })),
      );
    const c = createEventStore(sql, { owner: 'process-c', embedded: db.embedded });
    const e = createEventStore(sql, { owner: 'process-e', embedded: db.embedded });
    await c.heartbeat();
    const folds = [];
    for (const events of flushes('by-checkpoint')) folds.push((await c.commit('by-checkpoint', events, noLines)).fold!);
    await c.checkpoint('by-checkpoint', PendingFolds.of(folds));
    for (const events of flushes('by-recovery')) await e.commit('by-recovery', events, noLines);
    t.equal(await c.recover({ onlyProcess: true }), 2, "process-e's two journal rows are recovered");

    const rows = async (table: 'visitors' | 'sessions', project: string) =>
      (await sql`select * from ${sql(table)} where project_id = ${project} order by id`).map(
        ({ project_id: _p, ...r }) => r,
      );
    const visitors = await rows('visitors', 'by-checkpoint');
    t.equal(visitors.length, 9);
    t.ok(
      visitors.some((v) => v.postal_code !== null && v.latitude === 0 && Object.keys(v.experiments).length > 0),
      'the mix holds facts to lose',
    );
    t.same(await rows('visitors', 'by-recovery'), visitors, 'visitors');
    t.same(await rows('sessions', 'by-recovery'), await rows('sessions', 'by-checkpoint'), 'sessions');
  },
);

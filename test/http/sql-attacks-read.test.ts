// The SQL route against a hostile reader, on PostgreSQL and on the embedded database alike: through every
// view the caller sees its own project's rows and only those, whatever its conditions say (project beta's
// values all say "beta"); test/http/sql-attacks-catalog.test.ts tries everything past the views.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { safeRunner, seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({ sql: { timeoutMs: 1000, concurrency: 4, embeddedMaxCost: 100_000 } });
t.teardown(() => s.close());
const { owner } = await seedTwoProjects(s);
const { run, expectSafe } = safeRunner(s, owner.cookie);

t.test('the caller sees its own rows through every view, and only those', async (t) => {
  const counts: Record<string, number> = {
    events: 132,
    visitors: 17,
    issues: 1,
    speed_samples: 30,
    annotations: 1,
  };
  for (const [view, n] of Object.entries(counts)) {
    const all = await expectSafe(t, `select * from ${view}`, ['rows']);
    t.equal(all.body.rowCount, n, `${view}: alpha's ${n} rows`);
    const q = await expectSafe(t, `select count(*) as n from analyst.${view}`, ['rows']);
    t.equal(q.body.data[0].n, n, `analyst.${view} counts the same`);
  }
  const sessions = await expectSafe(t, 'select count(*) as n from sessions', ['rows']);
  const ofEvents = await run('select count(distinct session_id) as n from events');
  t.equal(sessions.body.data[0].n, ofEvents.body.data[0].n, "sessions: alpha's, as its events name them");
  const tricks = await expectSafe(
    t,
    "select count(*) as n from events where visitor_id like 'beta%' or props->>'secret' = 'beta' or true",
    ['rows'],
  );
  t.equal(tricks.body.data[0].n, 132, "a caller's predicate cannot widen the view");
});

// Recovery works project by project: one project whose journaled rows cannot be applied (here a trigger
// refuses its visitors, as a row past a PostgreSQL limit would) is reported and keeps its rows for the next
// recovery, while every other project's rows are applied.
import t from 'tap';
import { createEventStore } from '../../src/db/event-store.ts';
import { createProject } from '../../src/db/projects.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { enrichedRow } from '../support/enriched-row.ts';

const db = await openMigratedDatabase(t);
const sql = db.sql;
const dead = createEventStore(sql, { owner: 'process-dead', embedded: db.embedded });
const next = createEventStore(sql, { owner: 'process-next', embedded: db.embedded });
await dead.ensurePartition(new Date());
for (const id of ['alpha', 'bad', 'zulu']) await createProject(sql, { id, name: id, visibility: 'private' });
const noLines = () => ({ logs: [], counters: { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 } });
const at = (s: number) => new Date(Date.now() - 600_000 + s * 1000).toISOString();
const visitorCount = async (projectId: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from visitors where project_id = ${projectId}`)[0]!.n;

t.test("one project's failing rows never hold back another's recovery", async (t) => {
  await dead.heartbeat();
  for (const projectId of ['alpha', 'bad', 'zulu'])
    await dead.commit(
      projectId,
      [enrichedRow({ id: `${projectId}-1`, visitor_id: 'v1', session_id: 's1', ts: at(0) })],
      noLines,
    );
  await sql`create function refuse_bad() returns trigger language plpgsql as $$
    begin raise exception 'this row cannot be stored'; end $$`;
  await sql`create trigger refuse_bad before insert or update on visitors for each row
    when (new.project_id = 'bad') execute function refuse_bad()`;

  const told: [string, string | null][] = [];
  const onProject = (projectId: string, err: unknown) =>
    told.push([projectId, err === null ? null : (err as Error).message]);
  t.equal(await next.recover({ onlyProcess: true, onProject }), 2, "alpha's and zulu's rows are applied");
  t.same(told, [
    ['alpha', null],
    ['bad', 'this row cannot be stored'],
    ['zulu', null],
  ]);
  t.same([await visitorCount('alpha'), await visitorCount('bad'), await visitorCount('zulu')], [1, 0, 1]);
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from fold_journal where project_id = 'bad'`;
  t.equal(left!.n, 1, "bad's row stays for the next recovery");

  await t.rejects(next.recover({ onlyProcess: true }), /cannot be stored/, 'without onProject the failure is thrown');
  await sql`drop trigger refuse_bad on visitors`;
  t.equal(await next.recover({ onlyProcess: true }), 1, 'once it can be stored, it is');
  t.equal(await visitorCount('bad'), 1);
});

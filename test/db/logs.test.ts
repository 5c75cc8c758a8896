// Log lines in the database: appended in input order in the flush's text form (src/db/flush-text.ts), and
// read back exactly as written, whatever their values hold.
import t from 'tap';
import type { PendingLog } from '../../actors/project-actor.ts';
import { insertLogs, listLogs } from '../../src/db/logs.ts';
import { createProject } from '../../src/db/projects.ts';
import { openMigratedDatabase } from '../support/database.ts';

const db = await openMigratedDatabase(t);
await createProject(db.sql, { id: 'p', name: 'p', visibility: 'private' });

const line = (message: string, more: Partial<PendingLog> = {}): PendingLog => ({
  level: 'info',
  kind: 'ingest',
  source: 'api',
  visitor: null,
  session: null,
  message,
  data: { n: message.length },
  ...more,
});
const stored = async () => (await listLogs(db.sql, 'p', {}, null, 100)).map(({ id: _id, ts: _ts, ...rest }) => rest);

t.test('every field, nulls and empty strings apart, in input order', async (t) => {
  const own = new Date(Date.now() - 3_600_000).toISOString(); // within the seven days the stream serves
  const lines = [
    line('first', { visitor: 'v1', session: '', data: { quote: 'a "b" \\ c', nested: { x: [1, null] } } }),
    line('second', { ts: own, level: 'warn', kind: 'signals', source: 'engine' }),
    line('', { visitor: 'v3' }),
  ];
  const ids = await insertLogs(db.sql, 'p', lines);
  t.equal(ids.length, 3);
  t.ok(BigInt(ids[0]!.id) < BigInt(ids[1]!.id) && BigInt(ids[1]!.id) < BigInt(ids[2]!.id), 'ids in input order');
  t.equal(ids[1]!.ts.toISOString(), own, "a line's own time is kept");
  t.same(
    await stored(),
    lines.map(({ ts: _ts, ...rest }) => rest),
  );
});

t.test('values holding tabs, line breaks, backslashes and control characters are kept', async (t) => {
  await db.sql`delete from logs where project_id = 'p'`;
  const lines = [
    line('plain'),
    line('rejected event (bad\u001fname)', { data: { event: 'x\u001ey' } }),
    line('lone marker', { visitor: '\u001d', session: 's\u001dt' }),
    line('tab\tline\nbreak\r\\N', { visitor: '\\N', session: '\\', data: { path: 'C:\\x\ty' } }),
  ];
  await insertLogs(db.sql, 'p', lines);
  t.same(
    await stored(),
    lines.map(({ ts: _ts, ...rest }) => rest),
    'as written, a lone U+001D and the text \\N included (not null)',
  );
});

t.test(
  'ids follow commit order within a project: a second writer draws its ids once the first has committed',
  {
    skip: db.embedded ? 'embedded PGlite has one connection: its transactions never overlap' : false,
  },
  async (t) => {
    await createProject(db.sql, { id: 'q', name: 'q', visibility: 'private' });
    let release!: () => void;
    const open = new Promise<void>((r) => (release = r));
    let firstIds: string[] = [];
    const first = db.sql.begin(async (tx) => {
      firstIds = (await insertLogs(tx as unknown as typeof db.sql, 'p', [line('first writer')])).map((r) => r.id);
      await open;
    });
    while (firstIds.length === 0) await new Promise((r) => setTimeout(r, 5));
    let secondDone = false;
    const second = insertLogs(db.sql, 'p', [line('second writer')]).then((ids) => ((secondDone = true), ids));
    await new Promise((r) => setTimeout(r, 300));
    t.equal(
      secondDone,
      false,
      'the second waits while the first is open (without the lock it drew an id and committed first)',
    );
    t.equal(
      (await insertLogs(db.sql, 'q', [line('another project')])).length,
      1,
      "another project's writer does not wait",
    );
    release();
    await first;
    const [after] = await second;
    t.ok(
      BigInt(after!.id) > BigInt(firstIds[0]!),
      'and its id is the larger: a reader that sees it has seen the first',
    );
  },
);

// Deleting a project while its events keep arriving: the deletion, the flushes and the checkpoints lock
// the project row first (FOR UPDATE against FOR KEY SHARE), so none of them deadlocks, no ingest answer is
// a 500, and nothing of the project is left behind, not even by a flush that waited for the deletion.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

// Checkpoints every 20 ms: they run all through the deletion too.
const s = await startTestServer({ ingestRate: { capacity: 1_000_000, refillPerSecond: 1_000_000 }, checkpointMs: 20 });
t.teardown(() => s.close());
const owner = await s.member('owner');
const ua =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

t.test('a project deleted under load is gone, whole, and every answer is a clear one', async (t) => {
  for (let round = 0; round < 3; round++) {
    const id = `busy${round}`;
    const { secretKey } = await s.project(id);
    const statuses = new Map<number, number>();
    let n = 0;
    let stop = false;
    const worker = async (w: number) => {
      while (!stop) {
        const events = Array.from({ length: 50 }, (_, i) => ({
          id: `${w}-${n++}-${i}`,
          name: 'pageview',
          visitor: `v${(n + i) % 40}`,
          page: { url: `https://busy.example.com/p${i % 5}` },
          context: { ip: '81.2.69.142', userAgent: ua },
        }));
        const res = await s.request('POST', '/v2/ingest', { token: secretKey, body: { events } });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    await new Promise((r) => setTimeout(r, 400));
    const del = await s.request('DELETE', `/v2/projects/${id}`, owner);
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await Promise.all(workers);
    t.equal(del.status, 200, `round ${round}: deleted (${del.text.slice(0, 120)})`);
    t.ok((statuses.get(202) ?? 0) > 0, `round ${round}: events were accepted before the deletion`);
    t.same(
      [...statuses.keys()].filter((code) => ![202, 401, 404].includes(code)),
      [],
      `round ${round}: answers ${JSON.stringify([...statuses])}`,
    );
    await new Promise((r) => setTimeout(r, 100)); // a checkpoint of what the actor still held
    const tables = await s.loupe.services.sql<{ name: string }[]>`
      select cl.relname as name from pg_attribute a join pg_class cl on cl.oid = a.attrelid join pg_namespace ns on ns.oid = cl.relnamespace
      where a.attname = 'project_id' and not a.attisdropped and ns.nspname = current_schema() and cl.relkind in ('r', 'p') and not cl.relispartition`;
    const left: string[] = [];
    for (const { name } of tables) {
      const [row]: [{ n: number }?] = await s.loupe.services
        .sql`select count(*)::int as n from ${s.loupe.services.sql(name)} where project_id = ${id}`;
      if (row!.n > 0) left.push(`${name}: ${row!.n}`);
    }
    t.same(left, [], `round ${round}: no row of the project is left`);
  }
});

// The background rollup builder as the server runs it (src/query/rollup/builder.ts): closed days are
// built without any read asking, a late event's day is rebuilt, and the rollups then equal events.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, send, type Sent } from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 100 });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 4 * DAY;
const events = generate('b', start, 4, 40, 3);
const scope: Scope = {
  projectIds: ['site'],
  range: { from: new Date(start), to: new Date(today) },
  traffic: 'all',
  environment: 'all',
  filters: [],
};

/** Polls until the rollups answer for the range (at most 60 s). */
async function answered(): Promise<boolean> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if ((await rollupStats(sql, scope)) !== null) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

t.test('closed days are built without a read asking', async (t) => {
  await send(s, site.secretKey, events, owner.cookie);
  await s.settle();
  t.ok(await answered(), 'the rollups answer for the range');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'equal to events');
});

t.test("a late event's day is rebuilt by the builder", async (t) => {
  const late: Sent = { ...events[0]!, id: 'late', ts: start + DAY + 3_600_000, visitor: 'blate', session: 'blate-s' };
  await send(s, site.secretKey, [late], owner.cookie);
  await s.settle();
  t.ok(await answered(), 'the rollups answer again');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'and count the late event');
});

// A short pass of the fuzzer (npm run fuzz runs a long one): a few seconds of requests over every route
// of the OpenAPI document with every credential kind, and not one answer of 5xx.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { fuzz } from './fuzzer.ts';
import { CRON_SECRET, prepareTarget } from './target.ts';

const s = await startTestServer({ cronSecret: CRON_SECRET, ingestRate: { capacity: 1e6, refillPerSecond: 1e6 } });
t.teardown(() => s.close());

t.test('a short fuzz pass answers no 5xx', async (t) => {
  const seed = Date.now() % 1_000_000;
  const report = await fuzz(await prepareTarget(s), { requests: 400, seconds: 8, seed });
  t.comment(`seed ${seed}: ${report.sent} requests in ${report.ms} ms, statuses ${JSON.stringify(report.statuses)}`);
  t.ok(report.sent >= 50, 'requests were sent');
  t.ok(
    Object.keys(report.statuses).some((k) => k.startsWith('2')),
    'some succeeded',
  );
  t.same(report.failures, [], 'no answer of 5xx, and the server stayed up');
});

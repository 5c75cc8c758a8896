// bench:live's ingest driver, run in a worker thread (plain JavaScript: a worker gets no TypeScript
// loader), so its timings are not held up by the subscribers' sockets on the main thread. Sends a batch of
// 10 pageviews every `everyMs` for `seconds`, posting each batch's send time (ms since the epoch,
// comparable across threads), then every answer's duration.
import { parentPort, workerData } from 'node:worker_threads';

const now = () => performance.timeOrigin + performance.now();

/** Sends batch `n` of run `job.run`; answers how long its answer took, in ms. */
async function ingest(job, n) {
  const started = performance.now();
  const res = await fetch(`${job.url}/v2/ingest`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${job.secretKey}`,
      'content-type': 'application/json',
      'x-request-id': `bench-${job.run}-${n}`,
    },
    body: JSON.stringify({
      events: Array.from({ length: 10 }, (_, i) => ({
        id: `b${job.run}${n}-${i}`,
        name: 'pageview',
        visitor: `v${(n * 10 + i) % 500}`,
        page: { url: `https://shop.example.com/p/${i}` },
        context: {
          ip: '81.2.69.160',
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
        },
      })),
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}`);
  return performance.now() - started;
}

if (parentPort && workerData) {
  const job = workerData;
  const ingestMs = [];
  const inFlight = [];
  const started = performance.now();
  for (let n = 0; performance.now() - started < job.seconds * 1000; n++) {
    const due = started + n * job.everyMs;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    parentPort.postMessage({ sent: n, at: now() });
    inFlight.push(ingest(job, n).then((ms) => void ingestMs.push(ms)));
  }
  await Promise.all(inFlight);
  parentPort.postMessage({ done: true, ingestMs });
}

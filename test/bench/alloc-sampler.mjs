// Preloaded into the server by `BENCH_ALLOC_PROF=<dir> npm run bench:ingest` (node --import): samples what
// the server allocates from start to exit, garbage included (V8's sampling heap profiler keeps only what is
// still alive unless told otherwise, and young garbage is what makes the collector run), and writes the
// profile to <dir>/Alloc.<pid>.heapprofile at exit. Read it with `npm run -s bench:alloc -- <file>`.
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';

const dir = process.env.BENCH_ALLOC_PROF;
if (dir) {
  const session = new Session();
  session.connect();
  // One sample about every 16 kB allocated: a 10-second phase gives tens of thousands.
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  process.on('exit', () => {
    // A session on the main thread answers synchronously, so this runs before the process is gone.
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) return void console.error(`alloc-sampler: ${err.message}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${dir}/Alloc.${process.pid}.heapprofile`, JSON.stringify(result.profile));
    });
  });
}

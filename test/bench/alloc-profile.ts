// `npm run -s bench:alloc -- <file.heapprofile> [--top 30] [--depth 4]`: reads the allocation profile
// BENCH_ALLOC_PROF=<dir> npm run bench:ingest writes for the server (test/bench/alloc-sampler.mjs) and prints
// what allocated the bytes, garbage included: by function (bytes allocated in the function itself), then by
// its last callers. Builtins (`join`, `map`) are named as such; their callers show in the second list.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Node = {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, depth: { type: 'string', default: '4' } },
});
if (positionals.length !== 1) {
  console.error('usage: npm run -s bench:alloc -- <file.heapprofile> [--top 30] [--depth 4]');
  process.exit(2);
}
const { head } = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as { head: Node };
const top = Number(values.top);
const depth = Number(values.depth);

const nameOf = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`.trim();
const byFunction = new Map<string, number>();
const byStack = new Map<string, number>();
let total = 0;
(function walk(n: Node, path: string[]) {
  const here = [...path, nameOf(n)];
  if (n.selfSize > 0) {
    total += n.selfSize;
    byFunction.set(here.at(-1)!, (byFunction.get(here.at(-1)!) ?? 0) + n.selfSize);
    const stack = here.slice(-depth).reverse().join(' < ');
    byStack.set(stack, (byStack.get(stack) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, here);
})(head, []);

const print = (rows: Map<string, number>) => {
  for (const [k, v] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
console.log(`${(total / 1e6).toFixed(0)} MB allocated in the samples\n\nby function`);
print(byFunction);
console.log(`\nby function and its callers (the allocating function first)`);
print(byStack);

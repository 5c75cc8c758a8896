// `npm run -s bench:profile -- <file.cpuprofile> [--tree] [--min 0.5] [--top 40]`: reads a V8 CPU profile
// (BENCH_CPU_PROF=<dir> npm run bench:ingest writes one for the server) and prints where the time went: self
// time by function and by file, and time including callees; with --tree, the call tree merged by function,
// down to --min percent. Shares are of wall time: `(idle)` is the event loop waiting, and a native frame
// such as `writeBuffer` also holds the time the thread was descheduled inside it (on a busy two-core
// machine, a write that wakes a PostgreSQL backend), so read CPU time from bench:ingest's columns.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
type TreeNode = { key: string; time: number; children: Map<string, TreeNode> };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    tree: { type: 'boolean', default: false },
    min: { type: 'string', default: '0.5' },
    top: { type: 'string', default: '40' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: npm run -s bench:profile -- <file.cpuprofile> [--tree] [--min 0.5] [--top 40]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const min = Number(values.min);
const top = Number(values.top);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;

/** A function named by name, the last two parts of its file, and its line where the profile knows it (tsx's
 *  output reports none): the same function in every place it is called from gets one key. */
const keyOf = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}${n.callFrame.lineNumber > 0 ? `:${n.callFrame.lineNumber + 1}` : ''}`;
const fileOf = (n: ProfileNode) => n.callFrame.url.split('/').slice(-2).join('/') || n.callFrame.functionName;

// The merged tree: one node per distinct path of function keys, holding the time of its subtree.
const root: TreeNode = { key: '(root)', time: 0, children: new Map() };
function merge(id: number, parent: TreeNode): number {
  const n = byId.get(id)!;
  const key = keyOf(n);
  let node = parent.children.get(key);
  if (!node) parent.children.set(key, (node = { key, time: 0, children: new Map() }));
  let time = selfTime.get(id) ?? 0;
  for (const child of n.children ?? []) time += merge(child, node);
  node.time += time;
  return time;
}
merge(profile.nodes[0]!.id, root);

console.log(`${(total / 1000).toFixed(0)} ms sampled`);
if (values.tree) {
  const print = (node: TreeNode, depth: number) => {
    for (const child of [...node.children.values()].sort((a, b) => b.time - a.time)) {
      if ((child.time / total) * 100 < min) continue;
      console.log(`${pct(child.time)} ${'  '.repeat(depth)}${child.key}`);
      print(child, depth + 1);
    }
  };
  print(root, 0);
} else {
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  // Time including callees: each sample counts once for every distinct function on its stack.
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  for (const [id, time] of selfTime) {
    const n = byId.get(id)!;
    self.set(keyOf(n), (self.get(keyOf(n)) ?? 0) + time);
    files.set(fileOf(n), (files.get(fileOf(n)) ?? 0) + time);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) onStack.add(keyOf(byId.get(at)!));
    for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + time);
  }
  for (const [title, map] of [
    ['self time by function', self],
    ['self time by file', files],
    ['time including callees', inclusive],
  ] as const) {
    console.log(`\n${title}`);
    for (const [key, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(time)}  ${key}`);
  }
}

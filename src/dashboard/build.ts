// Builds the dashboard with esbuild, in memory, once per process: the app shell (app.js, app.css) and
// one chunk per view, loaded on demand. File names carry a content hash, so assets are cached for good
// and only index.html is revalidated. Each file is kept plain and gzipped, with its ETag.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export type Asset = {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  contentType: string;
};

export type DashboardBundle = {
  /** By file name, as served under /assets/. */
  assets: Map<string, Asset>;
  /** The shell's script and stylesheet, which index.html names. */
  entry: { script: string; style: string };
  /** Chunks the shell imports statically: index.html preloads them. */
  preload: string[];
  /** Each lazily loaded chunk under views/ (by its source file's name: overview, map) and every file it needs
   *  besides the shell. */
  views: Record<string, string[]>;
};

const TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

let cache: Promise<DashboardBundle> | null = null;

/** The dashboard's files, built on first use and kept for the life of the process. */
export function dashboardBundle(): Promise<DashboardBundle> {
  cache ??= buildDashboard();
  // A failed build is not kept: the next request tries again.
  cache.catch(() => {
    cache = null;
  });
  return cache;
}

export async function buildDashboard(): Promise<DashboardBundle> {
  const root = fileURLToPath(new URL('.', import.meta.url));
  const result = await build({
    entryPoints: { app: join(root, 'app/main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    outdir: '/assets',
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    platform: 'browser',
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const out of result.outputFiles) {
    const name = out.path.slice(out.path.lastIndexOf('/') + 1);
    const body = Buffer.from(out.contents);
    const ext = name.slice(name.lastIndexOf('.') + 1);
    assets.set(name, {
      body,
      gzip: gzipSync(body, { level: 9 }),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      contentType: TYPES[ext] ?? 'application/octet-stream',
    });
  }
  const outputs = result.metafile.outputs;
  // Views loaded with import() are entry points in the metafile too: the shell is the one built from main.tsx.
  const shell = Object.keys(outputs).find((p) => outputs[p]!.entryPoint?.endsWith('app/main.tsx') && p.endsWith('.js'));
  if (!shell) throw new Error('esbuild produced no dashboard entry');
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const style = outputs[shell]!.cssBundle;
  if (!style) throw new Error('the dashboard entry has no stylesheet');
  const statics = (p: string): string[] => {
    const seen = new Set<string>();
    const walk = (q: string) => {
      if (seen.has(q)) return;
      seen.add(q);
      for (const i of outputs[q]?.imports ?? []) if (i.kind === 'import-statement') walk(i.path);
    };
    walk(p);
    return [...seen];
  };
  const shellFiles = new Set(statics(shell));
  const views: Record<string, string[]> = {};
  for (const [p, out] of Object.entries(outputs)) {
    const source = out.entryPoint;
    if (!source || p === shell || !p.endsWith('.js') || !source.includes('/views/')) continue;
    const name = source.replace(/\/index\.tsx$/, '').replace(/\.tsx?$/, '');
    views[name.slice(name.lastIndexOf('/') + 1)] = statics(p)
      .filter((f) => !shellFiles.has(f))
      .map(base);
  }
  const preload = [...shellFiles].filter((p) => p !== shell).map(base);
  return { assets, entry: { script: base(shell), style: base(style) }, preload, views };
}

/** The chunks each address shows at once on a first visit: its view, and the overview's map (the default
 *  tab of its locations panel). Later views and tabs load when opened. */
export const FIRST_VISIT: Record<'projects' | 'overview' | 'errors' | 'speed' | 'retention' | 'logs', string[]> = {
  projects: ['projects'],
  overview: ['overview', 'map'],
  errors: ['errors'],
  speed: ['speed'],
  retention: ['retention'],
  logs: ['logs'],
};

/** The files a first visit to an address loads (page aside): the shell, its stylesheet and chunks, its views'. */
export function firstLoad(bundle: DashboardBundle, address: keyof typeof FIRST_VISIT): string[] {
  const files = new Set([bundle.entry.script, bundle.entry.style, ...bundle.preload]);
  for (const view of FIRST_VISIT[address]) {
    const own = bundle.views[view];
    if (!own) throw new Error(`no dashboard chunk ${view}`);
    for (const f of own) files.add(f);
  }
  return [...files];
}

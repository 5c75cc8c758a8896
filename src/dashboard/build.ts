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
  const shell = Object.keys(outputs).find((p) => outputs[p]!.entryPoint && p.endsWith('.js'));
  if (!shell) throw new Error('esbuild produced no dashboard entry');
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const style = outputs[shell]!.cssBundle;
  if (!style) throw new Error('the dashboard entry has no stylesheet');
  const preload = outputs[shell]!.imports.filter((i) => i.kind === 'import-statement').map((i) => base(i.path));
  return { assets, entry: { script: base(shell), style: base(style) }, preload };
}

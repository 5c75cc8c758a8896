// Builds the browser SDK with esbuild: loupe.js (script tag, IIFE), loupe-widget.js (script tag plus
// diagnostics panel) and loupe.esm.js. buildSdk writes them to a folder; sdkBundle builds once in
// memory for the API server's /v2/sdk/* route, so serving needs no prior build step.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';

export const SDK_FILES = ['loupe.js', 'loupe-widget.js', 'loupe.esm.js'] as const;
export type SdkFile = (typeof SDK_FILES)[number];

const ENTRIES: Record<SdkFile, { entry: string; format: 'iife' | 'esm' }> = {
  'loupe.js': { entry: 'browser/script-tag.ts', format: 'iife' },
  'loupe-widget.js': { entry: 'browser/widget.ts', format: 'iife' },
  'loupe.esm.js': { entry: 'browser/index.ts', format: 'esm' },
};

export type BuiltFile = { file: string; bytes: number; gzipBytes: number };

export async function buildSdk(outDir: string): Promise<BuiltFile[]> {
  const bundles = await buildAll();
  await mkdir(outDir, { recursive: true });
  const built: BuiltFile[] = [];
  for (const file of SDK_FILES) {
    const body = bundles[file];
    await writeFile(join(outDir, file), body);
    built.push({ file, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
  }
  return built;
}

export function isSdkFile(name: string): name is SdkFile {
  return (SDK_FILES as readonly string[]).includes(name);
}

let cache: Promise<Record<SdkFile, { body: Buffer; etag: string }>> | null = null;

/** One SDK file, built in memory on first use and cached for the life of the process. */
export async function sdkBundle(name: string): Promise<{ body: Buffer; etag: string }> {
  if (!isSdkFile(name)) throw Object.assign(new Error(`unknown SDK file: ${name}`), { code: 'SDK_NOT_FOUND' });
  cache ??= buildAll().then((bundles) => {
    const out = {} as Record<SdkFile, { body: Buffer; etag: string }>;
    for (const file of SDK_FILES) out[file] = { body: bundles[file], etag: etagOf(bundles[file]) };
    return out;
  });
  // A failed build must not be cached forever: the next request tries again.
  cache.catch(() => {
    cache = null;
  });
  return (await cache)[name];
}

async function buildAll(): Promise<Record<SdkFile, Buffer>> {
  const root = fileURLToPath(new URL('.', import.meta.url));
  const results = await Promise.all(
    SDK_FILES.map(async (file) => {
      const { entry, format } = ENTRIES[file];
      const options: BuildOptions = {
        entryPoints: [join(root, entry)],
        bundle: true,
        minify: true,
        format,
        target: ['es2019', 'chrome80', 'firefox78', 'safari15'],
        platform: 'browser',
        write: false,
        legalComments: 'none',
        logLevel: 'silent',
      };
      const result = await build(options);
      const output = result.outputFiles?.[0];
      if (!output) throw new Error(`esbuild produced no output for ${file}`);
      return [file, Buffer.from(output.contents)] as const;
    }),
  );
  return Object.fromEntries(results) as Record<SdkFile, Buffer>;
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outDir = process.argv[2] ?? join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/sdk');
  const built = await buildSdk(outDir);
  console.log(`SDK written to ${outDir}`);
  console.table(built.map((b) => ({ file: b.file, bytes: b.bytes, gzip: b.gzipBytes })));
}

// The dashboard's one HTML page, rendered from the built bundle's file names and the server's config:
// the page learns from <meta> tags whether a sign-in provider is configured, so it needs no extra request.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Asset, DashboardBundle } from './build.ts';

export type PageOptions = {
  signIn: boolean;
  /** The view the address opens: its chunks are preloaded with the shell's, saving a round trip. */
  view?: string;
};

export function renderPage(bundle: DashboardBundle, opts: PageOptions): Asset {
  const views = opts.view ? (bundle.views[opts.view] ?? []) : [];
  const preload = [...bundle.preload, ...views].map((f) => `<link rel="modulepreload" href="/assets/${f}">`).join('');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="loupe-signin" content="${opts.signIn ? '/v2/auth/signin' : ''}">
<title>Loupe</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 viewBox=%270 0 16 16%27%3E%3Ccircle cx=%277%27 cy=%277%27 r=%275%27 fill=%27none%27 stroke=%27%234338ca%27 stroke-width=%272.5%27/%3E%3C/svg%3E">
<link rel="stylesheet" href="/assets/${bundle.entry.style}">
<script type="module" src="/assets/${bundle.entry.script}"></script>
${preload}
</head>
<body>
<div id="app"><p class="boot">Loading Loupe…</p></div>
<noscript>The Loupe dashboard needs JavaScript. The API is at <a href="/v2/docs">/v2/docs</a>.</noscript>
</body>
</html>
`;
  const body = Buffer.from(html);
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    contentType: 'text/html; charset=utf-8',
  };
}

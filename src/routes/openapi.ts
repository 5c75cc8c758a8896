// The OpenAPI 3.1 document, generated from the route declarations and their valibot schemas,
// and the rendered reference page. Nothing here is written by hand per route.
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { AccessLevel } from '../auth/access.ts';
import type { Route } from './route.ts';

const accessText: Record<AccessLevel, string> = {
  public: 'Anyone.',
  project: 'Anyone for a public project; otherwise a member or API token listing the project.',
  detail:
    'Owner, admin or analyst listing the project, or an API token listing it; anyone on a public project with publicVisitorData.',
  admin: 'Owner; admin listing the project; admin token listing it.',
  owner: 'Owner only.',
  sql: 'Owner; admin or analyst listing the project; sql or admin token listing it; the project must have sqlEnabled.',
  organization: 'Owner, or an admin / admin token that lists no projects.',
  ingest: 'Public key (pk_…) from an allowed origin, or secret key (sk_…).',
  cron: 'The cron secret as a bearer token.',
};

const errorBody = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
        },
        requestId: { type: 'string' },
      },
    },
  },
};

const jsonSchema = (s: v.GenericSchema) => toJsonSchema(s as never, { errorMode: 'ignore', typeMode: 'input' });

export function buildOpenApi(routes: Route[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = r.query ? jsonSchema(r.query) : null;
    const queryParams =
      query && typeof query === 'object' && 'properties' in query && query.properties
        ? Object.entries(query.properties).map(([name, schema]) => ({
            name: name === 'filter' ? 'filter[<dimension>]' : name,
            in: 'query',
            required: Array.isArray(query.required) && query.required.includes(name),
            schema,
          }))
        : [];
    const op: Record<string, unknown> = {
      summary: r.summary,
      description: r.description
        ? `${r.description}\n\nAccess: ${accessText[r.access]}`
        : `Access: ${accessText[r.access]}`,
      tags: [r.tag],
      operationId: `${r.method.toLowerCase()}${r.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      parameters: [...params, ...queryParams],
      responses: {
        [String(r.status ?? 200)]: { description: r.responses?.[r.status ?? 200] ?? 'Success' },
        default: { description: 'Error', content: { 'application/json': { schema: errorBody } } },
      },
      security: r.access === 'public' ? [] : [{ bearer: [] }, { sessionCookie: [] }, { projectKey: [] }],
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body) } } };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loupe API',
      version: '2',
      description: 'Multi-project web analytics: ingest, aggregate and live reads, errors as issues.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'at_live_… API token, sk_… secret key (ingest), or the cron secret',
        },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'loupe.session_token' },
        projectKey: { type: 'apiKey', in: 'header', name: 'X-Project-Key' },
      },
    },
    paths,
  };
}

/** A self-contained reference page (no CDN: the document is rendered by a few lines of inline script). */
export const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loupe API reference</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{padding:24px 32px;background:#111;color:#fff}header h1{margin:0;font-size:22px}
main{max-width:960px;margin:0 auto;padding:16px 32px}h2{margin-top:32px;border-bottom:1px solid #ddd}
.op{background:#fff;border:1px solid #e3e3e3;border-radius:8px;margin:12px 0;padding:12px 16px}
.m{display:inline-block;min-width:64px;font-weight:700;font-family:ui-monospace,monospace}
.GET{color:#0a7}.POST{color:#06c}.PATCH{color:#b60}.DELETE{color:#c22}.PUT{color:#739}
code{font-family:ui-monospace,monospace}details pre{background:#f4f4f4;padding:8px;overflow:auto;font-size:12px}
.access{color:#666;font-size:13px}
</style></head><body><header><h1>Loupe API reference</h1><div>Generated from <a style="color:#9cf" href="openapi.json">openapi.json</a></div></header>
<main id="root">Loading…</main>
<script>
fetch('openapi.json').then(r=>r.json()).then(doc=>{
  const byTag={};
  for(const [path,ops] of Object.entries(doc.paths))for(const [m,op] of Object.entries(ops))(byTag[op.tags[0]]??=[]).push({path,m:m.toUpperCase(),op});
  const esc=s=>String(s).replace(/[&<>]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));
  document.getElementById('root').innerHTML=Object.entries(byTag).map(([tag,ops])=>'<h2>'+esc(tag)+'</h2>'+ops.map(({path,m,op})=>
    '<div class="op"><span class="m '+m+'">'+m+'</span> <code>'+esc(path)+'</code><div>'+esc(op.summary)+'</div><div class="access">'+esc(op.description)+'</div>'+
    (op.parameters.length?'<details><summary>Parameters</summary><pre>'+esc(JSON.stringify(op.parameters,null,2))+'</pre></details>':'')+
    (op.requestBody?'<details><summary>Body</summary><pre>'+esc(JSON.stringify(op.requestBody.content['application/json'].schema,null,2))+'</pre></details>':'')+
    '</div>').join('')).join('');
});
</script></body></html>`;

// The OpenAPI 3.1 document, generated from the route declarations and their valibot schemas,
// and the rendered reference page. Nothing here is written by hand per route.
import type { AccessLevel } from '../auth/access.ts';
import { dimensionParam, documentedQueryParam, jsonSchema, livePath } from './openapi-extras.ts';
import type { Route } from './route.ts';

const accessText: Record<AccessLevel, string> = {
  public: 'Anyone.',
  project: 'Anyone for a public project; otherwise a member or API token listing the project.',
  detail:
    'Owner, admin or analyst listing the project, or an API token listing it; anyone on a public project with publicVisitorData.',
  admin: 'Owner; admin listing the project; admin token listing it.',
  owner: 'Owner only.',
  members: 'An owner or admin (signed-in members).',
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

const EXPORT_TYPES: Record<string, string> = {
  'text/csv': 'format=csv (or Accept: text/csv): every row, a header row and nested members as dotted columns.',
  'application/sql': 'format=sql: CREATE TABLE and INSERT statements for PostgreSQL or SQLite.',
};

function parametersOf(r: Route) {
  const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: m[1] === 'dimension' ? dimensionParam : { type: 'string', minLength: 1 },
  }));
  const query = r.query ? jsonSchema(r.query) : null;
  const properties = (query?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(query?.required) ? (query.required as string[]) : [];
  const queryParams = Object.entries(properties).map(
    ([name, schema]) =>
      documentedQueryParam(name, schema, required.includes(name)) ?? {
        name,
        in: 'query',
        required: required.includes(name),
        schema,
      },
  );
  return [...params, ...queryParams];
}

function successOf(r: Route) {
  const status = r.status ?? 200;
  const description = r.responses?.[status] ?? r.summary;
  const content: Record<string, unknown> = {};
  if (r.response) content[r.responseType ?? 'application/json'] = { schema: jsonSchema(r.response) };
  for (const [type, note] of Object.entries(r.otherContent ?? {}))
    content[type] = { schema: { type: 'string', description: note } };
  const properties = r.query ? (jsonSchema(r.query).properties as Record<string, unknown> | undefined) : undefined;
  if (properties && 'format' in properties)
    for (const [type, note] of Object.entries(EXPORT_TYPES))
      content[type] = { schema: { type: 'string', description: note } };
  const answer: Record<string, unknown> = { description };
  if (Object.keys(content).length > 0) answer.content = content;
  if (status >= 300 && status < 400)
    answer.headers = { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } };
  return { [String(status)]: answer };
}

export function buildOpenApi(routes: Route[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op: Record<string, unknown> = {
      summary: r.summary,
      description: r.description
        ? `${r.description}\n\nAccess: ${accessText[r.access]}`
        : `Access: ${accessText[r.access]}`,
      tags: [r.tag],
      operationId: `${r.method.toLowerCase()}${r.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      parameters: parametersOf(r),
      responses: {
        ...successOf(r),
        default: { description: 'Error', content: { 'application/json': { schema: errorBody } } },
      },
      security: r.access === 'public' ? [] : [{ bearer: [] }, { sessionCookie: [] }, { projectKey: [] }],
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body) } } };
    if (r.documentedBody)
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: r.documentedBody }, 'text/plain': { schema: r.documentedBody } },
      };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = op;
  }
  paths['/v2/projects/{project}/live'] = livePath();
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
    Object.entries(op.responses).filter(([c,r])=>c!=='default'&&r.content).map(([c,r])=>'<details><summary>Response '+esc(c)+' ('+esc(Object.keys(r.content).join(', '))+')</summary><pre>'+esc(JSON.stringify(Object.values(r.content)[0].schema,null,2))+'</pre></details>').join('')+
    '</div>').join('')).join('');
});
</script></body></html>`;

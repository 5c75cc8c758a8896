// The analyst schema beside the editor, as the SQL route documents it in the API's OpenAPI document
// (GET /v2/openapi.json): each view, what it holds, and its columns with their types.
import { get } from '../../api.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote, Loading } from '../../components/notes.tsx';

type View = { name: string; about: string; columns: [string, string][] };
type OpenApi = { paths: Record<string, Record<string, { description?: string }>> };

const ROUTE = '/v2/projects/{project}/sql';

/** The "- `name` (about): column type, …" lines of the route's description. */
export function parseSchema(description: string): View[] {
  const views: View[] = [];
  for (const line of description.split('\n')) {
    const m = /^- `([a-z_]+)` \((.+?)\): (.+)$/.exec(line);
    if (!m) continue;
    const columns = m[3]!.split(', ').map((c): [string, string] => {
      const space = c.indexOf(' ');
      return [c.slice(0, space), c.slice(space + 1)];
    });
    views.push({ name: m[1]!, about: m[2]!, columns });
  }
  return views;
}

export function Schema() {
  const schema = useLoad('openapi', (signal) =>
    get<OpenApi>('/v2/openapi.json', undefined, signal).then((doc) =>
      parseSchema(doc.paths[ROUTE]?.post?.description ?? ''),
    ),
  );
  return (
    <aside class="card sql-schema" aria-labelledby="schema-title">
      <h2 id="schema-title">Schema</h2>
      {schema.error ? (
        <ErrorNote error={schema.error} />
      ) : !schema.data ? (
        <Loading label="Loading the schema…" />
      ) : (
        <>
          <p class="muted">
            This project's rows only. <code>is_human</code> is the reads' default traffic (bot score under 50, not
            internal, not localhost).
          </p>
          {schema.data.map((v) => (
            <details key={v.name} open={v.name === 'events'}>
              <summary>
                <code>{v.name}</code> <span class="muted">{v.about}</span>
              </summary>
              <ul>
                {v.columns.map(([name, type]) => (
                  <li key={name}>
                    <code>{name}</code> <span class="muted">{type}</span>
                  </li>
                ))}
              </ul>
            </details>
          ))}
        </>
      )}
    </aside>
  );
}

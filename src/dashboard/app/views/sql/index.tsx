// SQL (when the project has it on): an editor for one read-only SELECT, the analyst schema beside it (read
// from the API's own OpenAPI document, so it is the schema the route documents), the answer as a table,
// a CSV download of the whole answer (format=csv), and errors with the position PostgreSQL gave,
// marked in the query.
import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { ApiError, download, send } from '../../api.ts';
import { ErrorNote } from '../../components/notes.tsx';
import { canAdmin, projectApi, useProjectInfo } from '../../project-info.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import type { ProjectViewProps } from '../index.ts';
import { Results, type Answer } from './results.tsx';
import { Schema } from './schema.tsx';

const START = 'select name, count(*) as events\nfrom events\ngroup by name\norder by events desc\nlimit 20';

export default function Sql({ project }: ProjectViewProps) {
  const info = useProjectInfo(project);
  const text = useSignal(START);
  const answer = useSignal<Answer | null>(null);
  const error = useSignal<Error | null>(null);
  // The text that was run: an error's position points into it, not into later edits.
  const ran = useSignal('');
  const busy = useSignal(false);
  const editor = useRef<HTMLTextAreaElement>(null);
  const path = projectApi(project, '/sql');
  async function run() {
    busy.value = true;
    ran.value = text.value;
    try {
      answer.value = await send<Answer>('POST', path, { query: text.value });
      error.value = null;
    } catch (err) {
      error.value = err as Error;
      answer.value = null;
      const at = positionOf(err);
      // The caret goes where PostgreSQL stopped, so the mistake is one keypress away.
      if (at !== null && editor.current) {
        editor.current.focus();
        editor.current.setSelectionRange(at - 1, at);
      }
    } finally {
      busy.value = false;
    }
  }
  function saveCsv() {
    const query = text.value;
    void download('POST', path, { format: 'csv' }, `${project}-query.csv`, { query }).then(
      () => (error.value = null),
      (err: Error) => {
        ran.value = query;
        error.value = err;
      },
    );
  }
  const off = info.data && canAdmin(info.data) && !info.data.sqlEnabled;
  return (
    <section class="sql" aria-labelledby="sql-title">
      <h1 id="sql-title">SQL</h1>
      {off ? (
        <p class="note">
          SQL is off for this project.{' '}
          <a href={projectPath(project, 'settings')} onClick={onLinkClick}>
            Turn it on in Settings
          </a>
          .
        </p>
      ) : null}
      <div class="sql-layout">
        <form
          class="sql-editor"
          onSubmit={(e) => {
            e.preventDefault();
            void run();
          }}
        >
          <label for="sql-query">Query (one SELECT; Ctrl+Enter runs it)</label>
          <textarea
            id="sql-query"
            ref={editor}
            rows={10}
            spellcheck={false}
            value={text.value}
            onInput={(e) => (text.value = (e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void run();
              }
            }}
          />
          <div class="row-form">
            <button class="primary" type="submit" disabled={busy.value}>
              Run query
            </button>
            <button type="button" onClick={saveCsv}>
              Download CSV
            </button>
          </div>
        </form>
        <Schema />
      </div>
      <div class="sql-answer" aria-live="polite">
        {error.value ? <SqlError error={error.value} query={ran.value} /> : null}
        {answer.value ? <Results answer={answer.value} /> : null}
      </div>
    </section>
  );
}

function positionOf(err: unknown): number | null {
  if (!(err instanceof ApiError)) return null;
  const at = err.details.find((d) => typeof d.position === 'number')?.position;
  return at === undefined ? null : at;
}

/** The API's message, and with a position the line it falls on with a caret under the character. */
function SqlError({ error, query }: { error: Error; query: string }) {
  const at = positionOf(error);
  if (at === null) return <ErrorNote error={error} />;
  const before = query.slice(0, at - 1);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = at - lineStart;
  const end = query.indexOf('\n', lineStart);
  const text = query.slice(lineStart, end === -1 ? undefined : end);
  return (
    <div class="sql-error">
      <ErrorNote error={error} />
      <p class="muted" data-position={at}>
        Line {line}, column {column}:
      </p>
      <pre aria-label="Where the error is">
        {text}
        {'\n'}
        {' '.repeat(Math.max(0, column - 1))}^
      </pre>
    </div>
  );
}

// "Export CSV" and "Export JSON": every row of a read through the API's format parameter, fetched with the
// tab's credential and saved as a file. A refused export shows the API's message.
import { useSignal } from '@preact/signals';
import { download } from '../../api.ts';
import { ErrorNote } from '../../components/notes.tsx';

type Query = Record<string, string | number | undefined>;

export function Exports({ path, query, name, what }: { path: string; query: Query; name: string; what: string }) {
  const error = useSignal<Error | null>(null);
  const save = (format: 'csv' | 'json') =>
    void download('GET', path, { ...query, format }, `${name}.${format}`).then(
      () => (error.value = null),
      (err: Error) => (error.value = err),
    );
  return (
    <div class="exports" role="group" aria-label={`Export ${what}`}>
      <button onClick={() => save('csv')}>Export CSV</button>
      <button onClick={() => save('json')}>Export JSON</button>
      {error.value ? <ErrorNote error={error.value} /> : null}
    </div>
  );
}

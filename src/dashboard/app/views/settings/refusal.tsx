// An API refusal with the fields at fault, as the API names them (body.retentionDays: must be …).
import { ApiError } from '../../api.ts';
import { ErrorNote } from '../../components/notes.tsx';

export function Refusal({ error }: { error: Error }) {
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div class="refusal">
      <ErrorNote error={error} />
      {details.length > 0 ? (
        <ul class="note error">
          {details.map((d) => (
            <li key={d.field}>
              <code>{d.field.replace(/^body\./, '')}</code>: {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

// `insert … select … from json_to_recordset($1)` for a list of columns: the rows go as one JSON array
// parameter. jsonb columns are read as json and cast in the select list: declared jsonb in the record,
// json_to_recordset builds each value far slower. Only the raw-insert benchmark (ingest-raw.ts) uses it,
// as the JSON way to compare the flush's text form with.

/** The statement inserting `columns` of `table` from a JSON array parameter ($1); `types` names every
 *  column that is not text. Table and column names must be constants of the caller, never input. */
export function recordsetInsert(
  table: string,
  columns: readonly string[],
  types: Readonly<Record<string, string>>,
): string {
  const record = columns.map((c) => `${c} ${types[c] === 'jsonb' ? 'json' : (types[c] ?? 'text')}`).join(', ');
  const values = columns.map((c) => (types[c] === 'jsonb' ? `${c}::jsonb` : c)).join(', ');
  return `insert into ${table} (${columns.join(', ')}) select ${values} from json_to_recordset($1::text::json) as r(${record})`;
}

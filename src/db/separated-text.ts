// Rows as one text parameter that the database splits with string_to_array, about three times faster
// than json_to_recordset reads the same rows (docs/sql.md, "JSON parameters"): rows split by U+001E,
// fields by U+001F, U+001D alone for null. A value holding one of the three cannot be sent so: the
// rows are then answered null and the caller sends them as JSON, which its statement also takes.

/** Builds one row's line; `field` writes a nullable value (and counts the nulls). */
export type LineOf<T> = (row: T, field: (value: string | null) => string) => string;

/** The rows as separated text, each line `fields` fields long; null when a value holds a separator. JSON
 *  text may go in a field as it is: JSON.stringify escapes every control character. */
export function separatedText<T>(rows: readonly T[], fields: number, line: LineOf<T>): string | null {
  let nulls = 0;
  const field = (value: string | null): string => (value === null ? (nulls++, '\x1d') : value);
  let out = '';
  for (let i = 0; i < rows.length; i++) out += i === 0 ? line(rows[i]!, field) : `\x1e${line(rows[i]!, field)}`;
  // Counted once over the text instead of value by value: the lines hold `fields - 1` field separators
  // each, one row separator between lines and one null marker a null; any more were a value's.
  let separators = 0,
    markers = 0;
  for (let i = 0; i < out.length; i++) {
    const c = out.charCodeAt(i);
    if (c === 0x1e || c === 0x1f) separators++;
    else if (c === 0x1d) markers++;
  }
  return rows.length > 0 && separators === fields * rows.length - 1 && markers === nulls ? out : null;
}

/** The two parameters of a statement that takes either form: the text, or (when it is null) the JSON. */
export const textOrJson = (text: string | null, json: () => string): [string | null, string | null] =>
  text === null ? [null, json()] : [text, null];

/** A float8 field: null where JSON has no number for it either (JSON.stringify writes NaN and ±Infinity as
 *  null), so both forms store the same value. */
export const floatText = (n: number | null): string | null => (n === null || !Number.isFinite(n) ? null : String(n));

// The column list every export format shares: dotted keys read nested fields, and each column's type
// decides how its values are written. Values are trusted (rows come from our own queries).

export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'timestamp';
export type Column = { key: string; type: ColumnType };
/** A column with its key split once, so reading a row does not split it again per row. */
export type ReadyColumn = Column & { read: (row: Record<string, unknown>) => unknown };

export function prepareColumns(columns: Column[]): ReadyColumn[] {
  return columns.map((c) => ({ ...c, read: reader(c.key) }));
}

function reader(key: string): (row: Record<string, unknown>) => unknown {
  const path = key.split('.');
  if (path.length === 1) return (row) => row[key];
  // A flat key wins: the SQL route's rows are keyed by column names, which may hold a dot.
  return (row) => {
    if (Object.hasOwn(row, key)) return row[key];
    let at: unknown = row;
    for (const part of path) {
      if (at === null || typeof at !== 'object') return undefined;
      at = (at as Record<string, unknown>)[part];
    }
    return at;
  };
}

/** A timestamp as ISO text: Dates and epoch milliseconds are converted, strings pass through. */
export function isoText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return new Date(value).toISOString();
  return String(value);
}

/** Text for a value in a text column: objects and arrays as JSON. */
export function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

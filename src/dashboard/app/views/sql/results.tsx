// A query's answer as a table: the columns in the order the query named them, and every row (the plain
// answer holds at most 10,000; the API refuses larger ones and says to add a LIMIT or download).
export type Answer = { data: Record<string, unknown>[]; columns: { name: string; type: string }[]; rowCount: number };

const NUMERIC = new Set(['integer', 'number']);

const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export function Results({ answer }: { answer: Answer }) {
  return (
    <div class="table-wrap sql-results">
      <table data-rows={answer.rowCount}>
        <caption>{answer.rowCount === 1 ? '1 row' : `${answer.rowCount} rows`}</caption>
        <thead>
          <tr>
            {answer.columns.map((c) => (
              <th key={c.name} scope="col" class={NUMERIC.has(c.type) ? 'num' : undefined}>
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {answer.data.map((row, i) => (
            <tr key={i}>
              {answer.columns.map((c) => (
                <td key={c.name} class={NUMERIC.has(c.type) ? 'num' : undefined}>
                  {cell(row[c.name])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

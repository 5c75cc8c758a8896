// Static statements live in sql/queries, one a file (verb_noun.sql); this loads them once and runs them
// with bound parameters. Dynamic analytics SQL is built from `sql` fragments in src/query instead.
import { readdirSync, readFileSync } from 'node:fs';
import type { Sql, TransactionSql } from 'postgres';

const dir = new URL('../../sql/queries/', import.meta.url);
const statements = new Map<string, string>(
  readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => [f.slice(0, -4), readFileSync(new URL(f, dir), 'utf8')]),
);

type Param = string | number | boolean | null | Date | string[] | Record<string, unknown>;

/** Runs sql/queries/<name>.sql with positional parameters $1…$n and returns its typed rows. */
export async function query<Row>(sql: Sql | TransactionSql, name: string, params: Param[] = []): Promise<Row[]> {
  return (await sql.unsafe(statementText(name), params as never[], { prepare: true })) as unknown as Row[];
}

/** The text of sql/queries/<name>.sql. */
export function statementText(name: string): string {
  const text = statements.get(name);
  if (text === undefined) throw new Error(`No statement sql/queries/${name}.sql`);
  return text;
}

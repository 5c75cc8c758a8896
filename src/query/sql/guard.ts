// The SQL route's first gate: parses a caller's query with PostgreSQL's own parser (libpg-query) and
// refuses anything but exactly one read-only SELECT over the analyst views and allowed functions. On the
// embedded database this is most of the isolation there is (docs/sql-route.md), so it allows, never denies.
import { loadModule, parseSync } from 'libpg-query';
import { HttpError } from '../../errors.ts';
import { ALLOWED_FUNCTIONS, ALLOWED_NODES, ALLOWED_VALUE_FUNCTIONS } from './allowed.ts';

export type CheckedQuery = {
  /** The one statement's text, without a trailing semicolon. */
  text: string;
  /** Characters of the query before `text`: PostgreSQL's error positions in `text` add this. */
  offset: number;
  /** Uses WITH RECURSIVE: the embedded database, which cannot stop a statement, refuses it. */
  recursive: boolean;
};

const ready = loadModule();

/** Resolves once the parser's WebAssembly module is loaded (the first check waits for it). */
export const parserReady = () => ready;

/** Parses and checks `query`; throws SQL_ERROR (syntax) or SQL_REFUSED naming what is refused. */
export async function checkQuery(query: string): Promise<CheckedQuery> {
  await ready;
  let tree: { stmts?: { stmt: Record<string, unknown>; stmt_location?: number; stmt_len?: number }[] };
  try {
    tree = parseSync(query);
  } catch (err) {
    const details = (err as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    throw sqlError('SQL_ERROR', (err as Error).message, charPosition(query, details?.cursorPosition));
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) throw sqlError('SQL_REFUSED', 'The query holds no statement.');
  if (stmts.length > 1) {
    const at = charPosition(query, stmts[1]!.stmt_location);
    throw sqlError('SQL_REFUSED', 'Only one statement is allowed; found a second one.', at);
  }
  const { stmt, stmt_location = 0, stmt_len } = stmts[0]!;
  const kind = Object.keys(stmt)[0]!;
  if (kind !== 'SelectStmt')
    throw sqlError('SQL_REFUSED', `${statementName(kind)} is refused: only SELECT runs here.`, 1);
  const bytes = Buffer.from(query);
  const text = bytes.subarray(stmt_location, stmt_len ? stmt_location + stmt_len : undefined).toString();
  const offset = charPosition(query, stmt_location)! - 1;
  let recursive = false;
  walk(stmt, (type, body) => {
    const refuse = (what: string) =>
      sqlError('SQL_REFUSED', `${what} is refused.`, charPosition(query, body.location as number | undefined));
    if (!ALLOWED_NODES.has(type)) throw refuse(statementName(type));
    if (type === 'WithClause' && body.recursive) recursive = true;
    if (type === 'FuncCall') {
      const name = names(body.funcname);
      const fn = name.at(-1)!;
      if (name.length > 2 || (name.length === 2 && name[0] !== 'pg_catalog') || !ALLOWED_FUNCTIONS.has(fn))
        throw refuse(`Function ${name.join('.')}`);
    }
    if (type === 'RangeVar') {
      const rel = body.relname as string;
      const schema = body.schemaname as string | undefined;
      if (body.catalogname || (schema !== undefined && schema !== 'analyst') || rel.toLowerCase().startsWith('pg_'))
        throw refuse(`Relation ${[body.catalogname, schema, rel].filter(Boolean).join('.')} (only the analyst views)`);
    }
    if (type === 'SQLValueFunction' && !ALLOWED_VALUE_FUNCTIONS.has(body.op as string))
      throw refuse(String(body.op).replace('SVFOP_', ''));
    if (
      (type === 'A_Expr' || type === 'TypeName') &&
      qualifiedOutsideCatalog(type === 'A_Expr' ? body.name : body.names)
    )
      throw refuse(
        `${type === 'A_Expr' ? 'Operator' : 'Type'} ${names(type === 'A_Expr' ? body.name : body.names).join('.')}`,
      );
  });
  return { text, offset, recursive };
}

type Visit = (type: string, body: Record<string, unknown>) => void;

/** Visits every node of a libpg-query JSON tree: an object key starting with a capital names a node. */
function walk(value: unknown, visit: Visit): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    const type = /^[A-Z]/.test(key) ? key : INLINE_NODES[key];
    if (type && child !== null && typeof child === 'object' && !Array.isArray(child))
      visit(type, child as Record<string, unknown>);
    walk(child, visit);
  }
}

/** Fields whose node the parser writes without its type name around it (a struct, not a Node pointer). */
const INLINE_NODES: Record<string, string | undefined> = {
  withClause: 'WithClause',
  intoClause: 'IntoClause',
  typeName: 'TypeName',
};

const names = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((n) => (n as { String?: { sval?: string } }).String?.sval ?? '*') : [];

const qualifiedOutsideCatalog = (list: unknown) => {
  const n = names(list);
  return n.length > 1 && n[0] !== 'pg_catalog';
};

const STATEMENTS: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  VariableSetStmt: 'SET / RESET',
  VariableShowStmt: 'SHOW',
  DoStmt: 'DO',
  ListenStmt: 'LISTEN',
  UnlistenStmt: 'UNLISTEN',
  NotifyStmt: 'NOTIFY',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  CopyStmt: 'COPY',
  ExplainStmt: 'EXPLAIN',
  TransactionStmt: 'A transaction statement',
  LockingClause: 'FOR UPDATE / FOR SHARE',
  IntoClause: 'SELECT INTO',
  ParamRef: 'A parameter ($n)',
  XmlExpr: 'An XML function',
  XmlSerialize: 'XMLSERIALIZE',
  RangeTableFunc: 'XMLTABLE',
  CallStmt: 'CALL',
  LockStmt: 'LOCK',
};

const statementName = (type: string) => STATEMENTS[type] ?? type.replace(/Stmt$/, ' statement');

/** The 1-based character position of a byte offset into the query (the parser counts bytes). */
export const charPosition = (query: string, byteOffset: number | undefined) =>
  byteOffset === undefined ? undefined : Buffer.from(query).subarray(0, byteOffset).toString().length + 1;

/** A 400 with PostgreSQL's message and, when known, the 1-based character position in the query. */
export function sqlError(
  code: 'SQL_ERROR' | 'SQL_REFUSED' | 'SQL_TIMEOUT' | 'SQL_TOO_LARGE',
  message: string,
  position?: number,
): HttpError {
  const text =
    position === undefined
      ? message
      : `${message.replace(/\.$/, '')} (at character ${position})${message.endsWith('.') ? '.' : ''}`;
  return new HttpError(code, text, [
    { field: 'body.query', message: text, ...(position === undefined ? {} : { position }) },
  ]);
}

// The one catalogue of client-facing errors: each code has one HTTP status.
// Handlers throw these; src/http turns them into the error body, and anything else into a logged 500.
export const errorCatalogue = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  // The SQL route (docs/sql-route.md): a query PostgreSQL rejects, one the route refuses to run, one
  // stopped by the statement timeout, and an answer past the row or byte limit.
  SQL_ERROR: 400,
  SQL_REFUSED: 400,
  SQL_TIMEOUT: 400,
  SQL_TOO_LARGE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;
/** `position`: the 1-based character of a SQL query an error points at (the SQL route only). */
export type ErrorDetail = { field: string; message: string; position?: number };

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = errorCatalogue[code];
    this.headers = headers;
  }

  toBody(requestId?: string) {
    // details always: a client reads error.details[0]?.field without asking whether there are any.
    const error: Record<string, unknown> = { code: this.code, message: this.message, details: this.details };
    if (requestId && this.status >= 500) error.requestId = requestId;
    return { error };
  }
}

export const badRequest = (message: string, details: ErrorDetail[] = []) =>
  new HttpError('BAD_REQUEST', message, details);
export const validationFailed = (details: ErrorDetail[]) =>
  new HttpError(
    'VALIDATION_FAILED',
    details.map((d) => `${d.field}: ${d.message}`).join('; ') || 'Invalid input',
    details,
  );
export const unauthorized = (message = 'A valid credential is required.') => new HttpError('UNAUTHORIZED', message);
export const forbidden = (message = 'Your credential does not allow this.') => new HttpError('FORBIDDEN', message);
export const notFound = (message = 'Not found.') => new HttpError('NOT_FOUND', message);
export const conflict = (message: string) => new HttpError('CONFLICT', message);

/** 503 with Retry-After: something the route needs (Redis, the process holding a project) is out of reach
 *  for now; the client tries again in a moment. */
export const unavailable = (message: string, retryAfterSeconds = 1) =>
  new HttpError('UNAVAILABLE', message, [], { 'Retry-After': String(retryAfterSeconds) });

/** A statement PostgreSQL stopped at STATEMENT_TIMEOUT_MS (57014, not a cancel of a read whose client
 *  left): the database is too busy for it now, or the question too big. A 503 says so; a 500 would call
 *  it a bug. */
export function statementTimedOut(err: unknown): HttpError | null {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== '57014') return null;
  if (!/statement timeout/.test(err.message)) return null;
  return unavailable(
    'The database did not answer within the statement timeout (STATEMENT_TIMEOUT_MS); try again in a moment, or ask for a shorter range.',
    5,
  );
}

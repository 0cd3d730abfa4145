/** "The database cannot serve this now", not "this query is wrong": 503, and the client may retry. */
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57P'] as const;
const UNAVAILABLE_SQLSTATES = new Set(['57014' /* query_canceled: statement_timeout */]);
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

export function isDatabaseUnavailableError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (typeof current !== 'object') {
      return false;
    }
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNAVAILABLE_SYSTEM_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) {
        return true;
      }
      if (
        /^[0-9A-Z]{5}$/.test(code) &&
        UNAVAILABLE_SQLSTATE_PREFIXES.some((prefix) => code.startsWith(prefix))
      ) {
        return true;
      }
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))) {
      return true;
    }
    // TypeORM wraps the driver's error; AggregateError (from net) lists the attempts.
    const wrapped = current as { driverError?: unknown; cause?: unknown; errors?: unknown[] };
    current = wrapped.driverError ?? wrapped.cause ?? wrapped.errors?.[0];
  }
  return false;
}

/** What a statement that PostgreSQL refused broke, when it is the request's doing rather than a bug. */
export type RefusalKind =
  /** A unique or primary key taken (23505): 409. */
  | 'unique'
  /** A foreign key naming a row that does not exist (23503 on insert or update): 422. */
  | 'missing-reference'
  /** A row deleted, or its key changed, while others still refer to it (23503, or 23001 with ON DELETE RESTRICT): 409. */
  | 'still-referenced'
  /** A CHECK or NOT NULL constraint (23514, 23502), or a value of the wrong form for its column (class 22): 400. */
  | 'invalid-value';

export interface DatabaseRefusal {
  readonly kind: RefusalKind;
  readonly constraint?: string;
}

/**
 * Why PostgreSQL refused a statement when the request was the cause; undefined for anything else. A
 * service words a refusal in its resource's terms by `constraint` (docs/adding-a-resource.md).
 */
export function databaseRefusal(error: unknown): DatabaseRefusal | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth++) {
    const { code, constraint, message } = current as {
      code?: unknown;
      constraint?: unknown;
      message?: unknown;
    };
    const named = typeof constraint === 'string' ? { constraint } : {};
    if (code === '23505') {
      return { kind: 'unique', ...named };
    }
    if (code === '23001') {
      return { kind: 'still-referenced', ...named };
    }
    if (code === '23503') {
      // PostgreSQL words the two cases apart: "insert or update on table …" and "update or delete on table …".
      const deleting = typeof message === 'string' && message.startsWith('update or delete');
      return { kind: deleting ? 'still-referenced' : 'missing-reference', ...named };
    }
    if (code === '23514' || code === '23502' || (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code))) {
      return { kind: 'invalid-value', ...named };
    }
    current = (current as { driverError?: unknown }).driverError;
  }
  return undefined;
}

/** SQLSTATE 23505: a conflict, 409. */
export function isUniqueViolation(error: unknown): boolean {
  return databaseRefusal(error)?.kind === 'unique';
}

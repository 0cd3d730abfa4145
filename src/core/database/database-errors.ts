/**
 * Errors that mean "the database cannot serve this now" rather than "this
 * query is wrong": the client may retry, and gets 503 with `Retry-After`.
 */
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

/** A unique or primary key the statement would have broken (SQLSTATE 23505): a conflict, 409. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 3; depth++) {
    if ((current as { code?: unknown }).code === '23505') {
      return true;
    }
    current = (current as { driverError?: unknown }).driverError;
  }
  return false;
}

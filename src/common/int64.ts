/** The int64 range, as JSON Schema's `format: int64` and PostgreSQL's `bigint` define it. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** A JSON integer as the body parser hands it over: a `number` while safe, a `bigint` beyond. */
export type Int64 = number | bigint;

export function isInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value);
  }
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** Decimal digits, exact, as PostgreSQL takes a `bigint` parameter. */
export function int64ToString(value: Int64): string {
  return typeof value === 'bigint' ? value.toString() : String(Object.is(value, -0) ? 0 : value);
}

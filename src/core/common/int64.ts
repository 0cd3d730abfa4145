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

/** An int64 read back from PostgreSQL (decimal digits), as it goes into JSON: a number while safe, else a bigint. */
export function int64FromString(digits: string): Int64 {
  // Up to 15 digits (and a sign) is always a safe integer: no BigInt needed, which is the common case.
  if (digits.length <= 15) {
    return Number(digits);
  }
  const value = BigInt(digits);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

const INT64_LITERAL = /^-?\d{1,19}$/;

/** An int64 from text such as a path or query parameter: decimal digits, in range; undefined otherwise. */
export function parseInt64(text: string): Int64 | undefined {
  if (!INT64_LITERAL.test(text)) {
    return undefined;
  }
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? int64FromString(text) : undefined;
}

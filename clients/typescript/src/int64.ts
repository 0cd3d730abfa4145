/** An id as the client takes one: a bigint, or a number while it is a safe integer. */
export type Int64Input = bigint | number;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `value` as an exact int64. A number beyond 2^53 has already lost digits,
 * so it is refused rather than sent as some neighbouring id; so is anything
 * outside the int64 range, which the service would refuse anyway.
 */
export function toInt64(value: Int64Input, name: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`${name} must be a safe integer or a bigint, not ${value}`);
    }
    return BigInt(value);
  }
  if (typeof value !== 'bigint') {
    throw new TypeError(`${name} must be a bigint or a safe integer, not ${typeof value}`);
  }
  if (value < INT64_MIN || value > INT64_MAX) {
    throw new RangeError(`${name} must be in the int64 range, not ${value}`);
  }
  return value;
}

import { INT64_MAX, INT64_MIN } from '../common/int64.js';

/** int64's ends are raw JSON text, as no double holds 2^63 - 1: the document states every digit. */
const RANGES: Readonly<Record<string, { minimum: unknown; maximum: unknown }>> = {
  int32: { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
  int64: { minimum: JSON.rawJSON(String(INT64_MIN)), maximum: JSON.rawJSON(String(INT64_MAX)) },
};

/** Gives every integer schema that states no bound of its own its format's, so that no DTO repeats them. */
export function boundIntegers(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(boundIntegers);
    return;
  }
  if (node === null || typeof node !== 'object' || JSON.isRawJSON(node)) {
    return;
  }
  const schema = node as Record<string, unknown>;
  const isInteger =
    schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  const range = isInteger && typeof schema.format === 'string' ? RANGES[schema.format] : undefined;
  if (range) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) {
      schema.minimum = range.minimum;
    }
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) {
      schema.maximum = range.maximum;
    }
  }
  Object.values(schema).forEach(boundIntegers);
}

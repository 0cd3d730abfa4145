import type { TransformFnParams } from 'class-transformer';

import { parseInt64 } from '../common/int64.js';

/**
 * For `@Transform()`: query strings carry text, so digits become the integer they write (a `bigint`
 * past 2^53); anything else is left for the property's rules to refuse in their words.
 */
export function integerFromText({ value }: TransformFnParams): unknown {
  return typeof value === 'string' ? (parseInt64(value) ?? value) : value;
}

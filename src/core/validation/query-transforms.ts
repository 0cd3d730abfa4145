import type { TransformFnParams } from 'class-transformer';

import { parseInt64 } from '../common/int64.js';

/**
 * For `@Transform()`: a query or path parameter's digits as the integer they
 * write (a `bigint` past 2^53), as query strings carry text only; anything
 * else is left as it was, for the property's rules to refuse in their words.
 *
 * ```ts
 * @Transform(integerFromText) @IsIntegerBetween(1, 100) @IsOptionalNotNull() readonly limit?: number;
 * ```
 */
export function integerFromText({ value }: TransformFnParams): unknown {
  return typeof value === 'string' ? (parseInt64(value) ?? value) : value;
}

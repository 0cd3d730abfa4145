import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';

import { INT64_MAX, INT64_MIN, isInt64 } from '../common/int64.js';

/** Wire-contract rules that class-validator lacks or means differently: one rule, one message each. */

/** The property must be sent; `null` counts as sent (and then fails the type rule). */
export function IsPresent(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPresent',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property is required' },
      validator: { validate: (value: unknown) => value !== undefined },
    });
}

/** The property may be left out, but not sent as `null`: JSON Schema's "optional". */
export function IsOptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** An integer in the int64 range, exact (see `parseJson` for how big ones arrive). */
export function IsInt64(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isInt64',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `$property must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
        ...options,
      },
      validator: { validate: isInt64 },
    });
}

/** An integer (a JS number) within bounds, one message for every way of missing it. */
export function IsIntegerBetween(
  minimum: number,
  maximum: number,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIntegerBetween',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property must be an integer from ${minimum} to ${maximum}`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isInteger(value) && value >= minimum && value <= maximum,
      },
    });
}

export interface TextRules {
  readonly minLength: number;
  readonly maxLength: number;
  readonly notBlank?: boolean;
}

/**
 * A string PostgreSQL stores exactly as sent: no lone surrogate (stored as U+FFFD), no U+0000 (which
 * `text` cannot hold), its length counted in code points as JSON Schema and PostgreSQL count.
 */
export function IsText(rules: TextRules, options?: ValidationOptions): PropertyDecorator {
  const blank = rules.notBlank ? ' that is not only white space' : '';
  return (target, propertyName) =>
    registerDecorator({
      name: 'isText',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `$property must be a string of ${rules.minLength} to ${rules.maxLength} characters${blank}, without U+0000`,
        ...options,
      },
      validator: { validate: (value: unknown) => isText(value, rules) },
    });
}

export function isText(value: unknown, rules: TextRules): value is string {
  if (typeof value !== 'string' || value.includes('\u0000') || !value.isWellFormed()) {
    return false;
  }
  const length = countCodePoints(value);
  if (length < rules.minLength || length > rules.maxLength) {
    return false;
  }
  return !rules.notBlank || value.trim().length > 0;
}

function countCodePoints(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // A high surrogate starts a pair (the string is known to be well-formed).
    if (unit >= 0xd800 && unit <= 0xdbff) {
      index++;
    }
    count++;
  }
  return count;
}

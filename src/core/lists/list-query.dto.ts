import type { Type } from '@nestjs/common';
import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, type TransformFnParams } from 'class-transformer';
import { IsIn, registerDecorator, type ValidationArguments } from 'class-validator';

import { IsInt64, IsIntegerBetween, IsOptionalNotNull, IsText } from '../validation/constraints.js';
import { integerFromText } from '../validation/query-transforms.js';
import {
  type FilterParameter,
  type ListDeclaration,
  type ListField,
  MIN_CONTAINS_LENGTH,
} from './list-declaration.js';
import { type ListQuery, maxCursorLength, sortOrder } from './list-request.js';

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/**
 * The query DTO of a list, built from its declaration: `sort`, `limit`, `cursor`, `after` and one
 * property per filter parameter, named as the query string names it (`name[prefix]`), each with its
 * class-validator rules and its OpenAPI description. Nest's ValidationPipe checks it as any DTO, so a
 * parameter the declaration lacks is refused by name.
 *
 * ```ts
 * export class ListPlantsQueryDto extends ListQueryDto(PLANTS_LIST) {}
 * ```
 */
export function ListQueryDto<E>(list: ListDeclaration<E>): Type<ListQuery> {
  class ListQueryDto {}
  const declare = (name: string, ...decorators: PropertyDecorator[]) => {
    for (const decorator of decorators) {
      decorator(ListQueryDto.prototype, name);
    }
  };
  const sorts = list.sortable.flatMap(({ property }) => [property, `-${property}`]);
  declare(
    'sort',
    ApiPropertyOptional({
      type: 'array',
      items: { type: 'string', enum: sorts },
      uniqueItems: true,
      maxItems: list.sortable.length,
      style: 'form',
      explode: false,
      description:
        'The order: comma-separated fields, each ascending, or descending after a `-` (`name,-id`). ' +
        `The ${list.id.property} is always the last key, as the tie-breaker; left out, it runs the way of ` +
        `the key before it. In ${list.id.property} order unless given.`,
    } as ApiPropertyOptions),
    IsOptionalNotNull(),
    IsSort(list),
  );
  declare(
    'limit',
    ApiPropertyOptional({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: list.maxLimit,
      default: list.defaultLimit,
      description: 'The maximum number of results to return',
    }),
    Transform(integerFromText),
    IsOptionalNotNull(),
    IsIntegerBetween(1, list.maxLimit),
  );
  const cursorLength = maxCursorLength(list);
  declare(
    'cursor',
    ApiPropertyOptional({
      type: 'string',
      minLength: 1,
      maxLength: cursorLength,
      pattern: '^[A-Za-z0-9_-]+$',
      description:
        'Where the page starts: the cursor of the Link header (rel="next") of the page before, sent with ' +
        'the same sort and filters (else 400). Opaque.',
    }),
    IsOptionalNotNull(),
    IsCursor(cursorLength),
  );
  declare(
    'after',
    ApiPropertyOptional({
      type: 'integer',
      format: list.id.kind,
      description:
        `Return the ${list.noun} whose ${list.id.property} is greater than this: the last ` +
        `${list.id.property} of the previous page (see the Link header). In ${list.id.property} order only.`,
    }),
    Transform(integerFromText),
    IsOptionalNotNull(),
    ...valueRules(list.id),
  );
  for (const parameter of list.filters) {
    declare(parameter.name, ...filterDecorators(list, parameter));
  }
  if (list.deleteDate !== undefined) {
    declare(
      'deleted',
      ApiPropertyOptional({
        type: 'string',
        enum: ['only'],
        description:
          `The deleted ${list.noun}, in place of the others, until retention purges them: ` +
          'it needs a scope of its own, `<resource>:read-deleted`',
      }),
      IsOptionalNotNull(),
      IsIn(['only'], { message: '$property must be only, or left out' }),
    );
  }
  return ListQueryDto as Type<ListQuery>;
}

function filterDecorators<E>(list: ListDeclaration<E>, parameter: FilterParameter): PropertyDecorator[] {
  const { field, operator } = parameter;
  const description = `Only the ${list.noun} ${FILTER_WORDS[operator](field)}`;
  if (operator === 'null') {
    return [
      ApiPropertyOptional({ type: 'boolean', description }),
      Transform(booleanFromText),
      IsOptionalNotNull(),
      IsTrueOrFalse(),
    ];
  }
  const minLength = operator === 'contains' ? MIN_CONTAINS_LENGTH : 1;
  const schema = valueSchema(field, minLength);
  if (operator === 'in') {
    return [
      ApiPropertyOptional({
        type: 'array',
        items: schema,
        minItems: 1,
        maxItems: list.maxValues,
        description: `${description} (repeat the parameter for each, at most ${list.maxValues})`,
      } as ApiPropertyOptions),
      Transform(field.kind === 'text' ? listFromText : integerListFromText),
      IsOptionalNotNull(),
      IsValueList(list.maxValues),
      ...valueRules(field, minLength, true),
    ];
  }
  return [
    ApiPropertyOptional({ ...schema, description }),
    ...(field.kind === 'text' ? [] : [Transform(integerFromText)]),
    IsOptionalNotNull(),
    ...valueRules(field, minLength),
  ];
}

const FILTER_WORDS: Readonly<Record<FilterParameter['operator'], (field: ListField) => string>> = {
  eq: ({ property }) => `whose ${property} is this`,
  ne: ({ property, nullable }) =>
    `whose ${property} is not this${nullable ? ` (those without a ${property} included)` : ''}`,
  lt: ({ property }) => `whose ${property} is less than this`,
  lte: ({ property }) => `whose ${property} is this or less`,
  gt: ({ property }) => `whose ${property} is greater than this`,
  gte: ({ property }) => `whose ${property} is this or greater`,
  in: ({ property }) => `whose ${property} is one of these`,
  prefix: ({ property }) => `whose ${property} starts with this (case-sensitive)`,
  contains: ({ property }) =>
    `whose ${property} contains this, ignoring case: at least ${MIN_CONTAINS_LENGTH} characters`,
  null: ({ property }) => `without a ${property} (true), or with one (false)`,
};

function valueSchema(field: ListField, minLength: number): ApiPropertyOptions {
  switch (field.kind) {
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'int32':
      return { type: 'integer', format: 'int32', ...INT32 };
    case 'text':
      return { type: 'string', minLength, maxLength: field.maxLength };
  }
}

/** A value's own rules, as its column has them: an exact int64, an int32, or text that fits. */
function valueRules(field: ListField, minLength = 1, each = false): PropertyDecorator[] {
  switch (field.kind) {
    case 'int64':
      return [IsInt64({ each })];
    case 'int32':
      return [IsIntegerBetween(INT32.minimum, INT32.maximum, { each })];
    case 'text':
      return [IsText({ minLength, maxLength: field.maxLength }, { each })];
  }
}

/** `in` takes the parameter repeated, which the query parser hands over as a list, or once. */
function listFromText({ value }: TransformFnParams): unknown {
  return typeof value === 'string' ? [value] : value;
}

function integerListFromText(params: TransformFnParams): unknown {
  const values = listFromText(params);
  return Array.isArray(values)
    ? values.map((value: unknown) => integerFromText({ ...params, value }))
    : values;
}

function booleanFromText({ value }: TransformFnParams): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

function IsSort<E>(list: ListDeclaration<E>): PropertyDecorator {
  const problem = (value: unknown) =>
    typeof value === 'string'
      ? sortOrder(list, value)
      : 'sort must be given once, its fields separated by commas: name,-id';
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSort',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: ({ value }: ValidationArguments) => {
          const parsed = problem(value);
          return typeof parsed === 'string' ? parsed : '';
        },
      },
      validator: { validate: (value: unknown) => typeof problem(value) !== 'string' },
    });
}

function IsCursor(maxLength: number): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCursor',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `$property must be the cursor of a Link header: base64url, at most ${maxLength} characters`,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && value.length <= maxLength && /^[A-Za-z0-9_-]+$/.test(value),
      },
    });
}

function IsValueList(maxValues: number): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isValueList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property takes 1 to ${maxValues} values, the parameter repeated for each` },
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.length >= 1 && value.length <= maxValues,
      },
    });
}

function IsTrueOrFalse(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTrueOrFalse',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be true or false' },
      validator: { validate: (value: unknown) => typeof value === 'boolean' },
    });
}

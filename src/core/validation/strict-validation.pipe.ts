import {
  type ArgumentMetadata,
  BadRequestException,
  Injectable,
  type PipeTransform,
  type Type,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { getMetadataStorage, validateSync, type ValidationError, ValidationTypes } from 'class-validator';

import { JSON_MEDIA_TYPE, UnsupportedBody } from '../http/json-body.parser.js';
import { nestedTypeOf } from './nested-type.js';
import { queryParserOf } from './query-value.js';
import { compileRuleCheck, type RuleCheck } from './rule-check.js';

/** What the pipe knows of a DTO class, worked out on its first request. */
interface DtoRules {
  readonly declared: ReadonlySet<string>;
  /** The class of each property validated as a nested object (`@ValidateNested()` with `@Type()`). */
  readonly nested: ReadonlyMap<string, Type>;
  readonly check?: RuleCheck;
}

type Source = 'body' | 'query' | 'param';

/**
 * Validates every `@Body()`, `@Query()` and `@Param()` whose type is a
 * class-validator DTO, strictly, on every route of every module:
 * - a route that takes a body answers 415 to a body that is not JSON, and
 *   400 to none at all; the body must be a JSON object;
 * - a property the DTO does not declare is refused by name, `__proto__`,
 *   `constructor` and `prototype` included, at any depth (`items[0].colour`);
 * - the DTO is filled from the declared properties only, nested DTOs
 *   (`@ValidateNested()` with `@Type(() => Item)`, or an array of them)
 *   included, so nothing from the request can reach an object's prototype
 *   (class-transformer would copy an own `__proto__` key straight into it);
 * - every broken rule is named in the one message, by its path
 *   (`items[0].sku must be …`), one rule per property.
 *
 * Valid input is recognised by a compiled check of the classes' rules (see
 * `compileRuleCheck`); anything else goes through class-validator's
 * `validateSync`, which words the message.
 *
 * Body values are not converted: the JSON types are the contract. Query
 * and path values are text, turned into what their DTO property declares
 * with `@QueryValue()`. Parameters of other types (a `string` path
 * parameter, a value a pipe of its own parses) pass untouched.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly dtoRules = new WeakMap<Type, DtoRules>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const source = sourceOf(metadata);
    if (source === 'body' && (value === undefined || value instanceof UnsupportedBody)) {
      // No parsed JSON: a route that takes a body needs one, in JSON.
      throw value === undefined
        ? new BadRequestException('A JSON request body is required')
        : new UnsupportedMediaTypeException(`Content-Type must be ${JSON_MEDIA_TYPE}`);
    }
    const { metatype } = metadata;
    if (!source || !metatype || this.rulesOf(metatype).declared.size === 0) {
      return value;
    }
    if (!isObject(value)) {
      throw new BadRequestException(
        source === 'body' ? 'Request body must be a JSON object' : 'Query parameters are missing',
      );
    }

    const problems: string[] = [];
    const instance = this.materialize(value, metatype, source, '', problems);
    if (problems.length > 0 || !this.rulesOf(metatype).check?.(instance)) {
      for (const error of validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true })) {
        problems.push(...messagesOf(error, ''));
      }
    }
    if (problems.length > 0) {
      throw new BadRequestException(problems.join('; '));
    }
    return instance;
  }

  /** An instance of `metatype` holding the declared properties of `value`, nested DTOs made the same way. */
  private materialize(
    value: object,
    metatype: Type,
    source: Source,
    path: string,
    problems: string[],
  ): Record<string, unknown> {
    const { declared, nested } = this.rulesOf(metatype);
    for (const key of Object.keys(value)) {
      if (!declared.has(key)) {
        problems.push(
          `${source === 'body' ? 'property' : `${source} parameter`} ${path}${key} is not allowed`,
        );
      }
    }
    const instance = new (metatype as Type<Record<string, unknown>>)();
    for (const key of declared) {
      if (!Object.hasOwn(value, key)) {
        continue;
      }
      const given = (value as Record<string, unknown>)[key];
      const itemType = nested.get(key);
      if (itemType && Array.isArray(given)) {
        instance[key] = given.map((item: unknown, index) =>
          isObject(item)
            ? this.materialize(item, itemType, source, `${path}${key}[${index}].`, problems)
            : item,
        );
      } else if (itemType && isObject(given)) {
        instance[key] = this.materialize(given, itemType, source, `${path}${key}.`, problems);
      } else {
        const parse = source === 'body' ? undefined : queryParserOf(metatype.prototype as object, key);
        instance[key] = parse && typeof given === 'string' ? parse(given) : given;
      }
    }
    return instance;
  }

  private rulesOf(metatype: Type): DtoRules {
    let rules = this.dtoRules.get(metatype);
    if (!rules) {
      const metadata = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
      const nested = new Map<string, Type>();
      for (const rule of metadata) {
        const type =
          rule.type === ValidationTypes.NESTED_VALIDATION && nestedTypeOf(metatype, rule.propertyName);
        if (type) {
          nested.set(rule.propertyName, type);
        }
      }
      rules = {
        declared: new Set(metadata.map((rule) => rule.propertyName)),
        nested,
        check: metadata.length > 0 ? compileRuleCheck(metatype) : undefined,
      };
      this.dtoRules.set(metatype, rules);
    }
    return rules;
  }
}

function sourceOf({ type }: ArgumentMetadata): Source | undefined {
  // `custom`: a parameter decorator of the project's own that hands over a body.
  return type === 'body' || type === 'custom'
    ? 'body'
    : type === 'query' || type === 'param'
      ? type
      : undefined;
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Each broken rule's message, its property named by its full path:
 * class-validator words a nested rule by the leaf's name (`sku must be …`),
 * and lists an array's items as children named by their index.
 */
function messagesOf(error: ValidationError, parent: string): string[] {
  const path =
    parent === ''
      ? error.property
      : /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`;
  const own = Object.values(error.constraints ?? {}).map((message) =>
    message.startsWith(`${error.property} `)
      ? `${path}${message.slice(error.property.length)}`
      : `${path}: ${message}`,
  );
  return [...own, ...(error.children ?? []).flatMap((child) => messagesOf(child, path))];
}

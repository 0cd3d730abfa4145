import {
  type ArgumentMetadata,
  BadRequestException,
  Injectable,
  type PipeTransform,
  type Type,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { getMetadataStorage, validateSync, type ValidationError, ValidationTypes } from 'class-validator';

import { JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE, UnsupportedBody } from '../http/json-body.parser.js';
import { keyForMessage } from '../http/json.js';
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
 * Validates every `@Body()`, `@Query()` and `@Param()` whose type is a DTO
 * class, strictly, on every route of every module, as Nest's
 * `ValidationPipe({ whitelist: true, forbidNonWhitelisted: true })` would:
 * - a route that takes a body answers 415 to a body that is not JSON, and
 *   400 to none at all; the body must be a JSON object;
 * - a property the DTO does not declare with a class-validator rule is
 *   refused by name, at any depth (`items[0].colour`); a DTO with no rules at
 *   all (`export class CreateGizmoDto {}`, as `nest g resource` writes it)
 *   accepts `{}` only;
 * - the DTO is filled from the declared properties only, nested DTOs
 *   (`@ValidateNested()` with `@Type(() => Item)`, or an array of them)
 *   included, so nothing from the request can reach an object's prototype
 *   (class-transformer would copy an own `__proto__` key straight into it;
 *   the body parser refuses such keys before any of this, see `parseJson`);
 * - every broken rule is named in the one message, by its path
 *   (`items[0].sku must be …`), one rule per property; past the first few,
 *   the rest are counted, so that the message stays short whatever the input.
 *
 * Valid input is recognised by a compiled check of the classes' rules (see
 * `compileRuleCheck`); anything else goes through class-validator's
 * `validateSync`, which words the message.
 *
 * Body values are not converted: the JSON types are the contract. Query
 * and path values are text, turned into what their DTO property declares
 * with `@QueryValue()`. Parameters of other types (a `string` path
 * parameter, a value a pipe of its own parses such as `ParseIntPipe`'s, an
 * interface, `Record<string, unknown>`) pass untouched, and so do the values
 * of custom parameter decorators (`createParamDecorator`), whatever their
 * type, as with Nest's `ValidationPipe` without `validateCustomDecorators`:
 * a decorator that wants its value validated is given a pipe of its own.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly dtoRules = new WeakMap<Type, DtoRules>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const source = sourceOf(metadata);
    // `@Body('name')` hands over one property, which may be missing from a body that is there.
    const wholeBody = source === 'body' && metadata.data === undefined;
    if (wholeBody && (value === undefined || value instanceof UnsupportedBody)) {
      // No parsed JSON: a route that takes a body needs one, in JSON.
      throw value === undefined
        ? new BadRequestException('A JSON request body is required')
        : new UnsupportedMediaTypeException(
            value.method === 'PATCH'
              ? `Content-Type must be ${MERGE_PATCH_MEDIA_TYPE} or ${JSON_MEDIA_TYPE}`
              : `Content-Type must be ${JSON_MEDIA_TYPE}`,
          );
    }
    const { metatype } = metadata;
    if (!source || !isDtoClass(metatype)) {
      return value;
    }
    if (!isObject(value)) {
      throw new BadRequestException(
        source === 'body' ? 'Request body must be a JSON object' : 'Query parameters are missing',
      );
    }

    const rules = this.rulesOf(metatype);
    const problems = new Problems();
    const instance = this.materialize(value, metatype, source, '', problems);
    // A class without rules has nothing for validateSync to word (it would call the instance unknown).
    if (rules.declared.size > 0 && (!problems.isEmpty || !rules.check?.(instance))) {
      for (const error of validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true })) {
        for (const message of messagesOf(error, '')) {
          problems.add(message);
        }
      }
    }
    if (!problems.isEmpty) {
      throw new BadRequestException(problems.message());
    }
    return instance;
  }

  /** An instance of `metatype` holding the declared properties of `value`, nested DTOs made the same way. */
  private materialize(
    value: object,
    metatype: Type,
    source: Source,
    path: string,
    problems: Problems,
  ): Record<string, unknown> {
    const { declared, nested } = this.rulesOf(metatype);
    for (const key of Object.keys(value)) {
      if (!declared.has(key)) {
        problems.add(
          `${source === 'body' ? 'property' : `${source} parameter`} ${path}${keyForMessage(key)} is not allowed`,
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

/** Where a parameter comes from; undefined for a custom decorator's value, which is its own business. */
function sourceOf({ type }: ArgumentMetadata): Source | undefined {
  return type === 'body' || type === 'query' || type === 'param' ? type : undefined;
}

/**
 * Whether a parameter's type is a class of the application's, rather than
 * one of the language's or the runtime's: a parameter typed `string`,
 * `number`, an interface, a union, `Record<string, unknown>` or `any`
 * reports `String`, `Number` or `Object`, and `Date`, `Buffer` or `Array`
 * are no DTOs either. Those are the classes found on the global object
 * under their own name.
 */
function isDtoClass(metatype: Type | undefined): metatype is Type {
  return (
    typeof metatype === 'function' && (globalThis as Record<string, unknown>)[metatype.name] !== metatype
  );
}

/** Past this many, problems are counted rather than named. */
const MAX_NAMED_PROBLEMS = 5;

/**
 * The problems of one input, for one message that stays short: a body of
 * 16 KiB can hold thousands of unknown properties, or broken list items.
 */
class Problems {
  private readonly named: string[] = [];
  private unnamed = 0;

  get isEmpty(): boolean {
    return this.named.length === 0;
  }

  add(problem: string): void {
    if (this.named.length < MAX_NAMED_PROBLEMS) {
      this.named.push(problem);
    } else {
      this.unnamed++;
    }
  }

  message(): string {
    const named = this.named.join('; ');
    return this.unnamed === 0 ? named : `${named}; and ${this.unnamed} more`;
  }
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

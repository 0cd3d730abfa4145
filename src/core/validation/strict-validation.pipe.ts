import {
  type ArgumentMetadata,
  BadRequestException,
  Injectable,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';

import { queryParserOf } from './query-value.js';
import { compileRuleCheck, type RuleCheck } from './rule-check.js';

/** What the pipe knows of a DTO class, worked out on its first request. */
interface DtoRules {
  readonly declared: ReadonlySet<string>;
  readonly check?: RuleCheck;
}

/**
 * Validates a JSON body, or a query string, against its DTO class, strictly:
 * - the body must be a JSON object;
 * - a property the DTO does not declare is refused by name, `__proto__`,
 *   `constructor` and `prototype` included;
 * - the DTO is filled from the declared properties only, so nothing from the
 *   body can reach an object's prototype (class-transformer would copy an own
 *   `__proto__` key straight into it);
 * - every broken rule is named in the one message, one rule per property.
 *
 * Valid input is recognised by a compiled check of the class's rules (see
 * `compileRuleCheck`); anything else goes through class-validator's
 * `validateSync`, which words the message.
 *
 * Body values are not converted: the JSON types are the contract. Query
 * values are text, turned into what their DTO property declares with
 * `@QueryValue()`.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly dtoRules = new WeakMap<Type, DtoRules>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const { metatype } = metadata;
    if (!(metadata.type === 'body' || metadata.type === 'custom' || metadata.type === 'query') || !metatype) {
      return value;
    }
    const isQuery = metadata.type === 'query';
    const { declared, check } = this.rulesOf(metatype);
    if (declared.size === 0) {
      return value;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new BadRequestException(
        isQuery ? 'Query parameters are missing' : 'Request body must be a JSON object',
      );
    }

    const problems: string[] = [];
    for (const key of Object.keys(value)) {
      if (!declared.has(key)) {
        problems.push(isQuery ? `query parameter ${key} is not allowed` : `property ${key} is not allowed`);
      }
    }
    const instance = new (metatype as Type<Record<string, unknown>>)();
    for (const key of declared) {
      if (Object.hasOwn(value, key)) {
        const given = (value as Record<string, unknown>)[key];
        const parse = isQuery ? queryParserOf(metatype.prototype as object, key) : undefined;
        instance[key] = parse && typeof given === 'string' ? parse(given) : given;
      }
    }
    if (problems.length > 0 || !check?.(instance)) {
      for (const error of validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true })) {
        problems.push(...messagesOf(error));
      }
    }
    if (problems.length > 0) {
      throw new BadRequestException(problems.join('; '));
    }
    return instance;
  }

  private rulesOf(metatype: Type): DtoRules {
    let rules = this.dtoRules.get(metatype);
    if (!rules) {
      const metadata = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
      rules = {
        declared: new Set(metadata.map((rule) => rule.propertyName)),
        check: metadata.length > 0 ? compileRuleCheck(metatype) : undefined,
      };
      this.dtoRules.set(metatype, rules);
    }
    return rules;
  }
}

function messagesOf(error: ValidationError): string[] {
  return Object.values(error.constraints ?? {});
}

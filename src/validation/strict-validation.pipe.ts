import {
  type ArgumentMetadata,
  BadRequestException,
  Injectable,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';

import { queryParserOf } from './query-value.js';

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
 * Body values are not converted: the JSON types are the contract. Query
 * values are text, turned into what their DTO property declares with
 * `@QueryValue()`.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly declaredProperties = new WeakMap<Type, ReadonlySet<string>>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const { metatype } = metadata;
    if (!(metadata.type === 'body' || metadata.type === 'custom' || metadata.type === 'query') || !metatype) {
      return value;
    }
    const isQuery = metadata.type === 'query';
    const declared = this.declaredPropertiesOf(metatype);
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
    for (const error of validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true })) {
      problems.push(...messagesOf(error));
    }
    if (problems.length > 0) {
      throw new BadRequestException(problems.join('; '));
    }
    return instance;
  }

  private declaredPropertiesOf(metatype: Type): ReadonlySet<string> {
    let declared = this.declaredProperties.get(metatype);
    if (!declared) {
      const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
      declared = new Set(rules.map((rule) => rule.propertyName));
      this.declaredProperties.set(metatype, declared);
    }
    return declared;
  }
}

function messagesOf(error: ValidationError): string[] {
  return Object.values(error.constraints ?? {});
}

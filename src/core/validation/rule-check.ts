import type { Type } from '@nestjs/common';
import { getMetadataStorage, type ValidationArguments, ValidationTypes } from 'class-validator';

type ValidationMetadata = ReturnType<
  ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']
>[number];

/** Says whether an instance keeps every rule of its class. */
export type RuleCheck = (instance: object) => boolean;

interface Rule {
  readonly metadata: ValidationMetadata;
  readonly validate: (value: unknown, validationArguments: ValidationArguments) => unknown;
}

interface PropertyRules {
  readonly property: string;
  /** `@ValidateIf` conditions: when one is false, the property's rules are skipped. */
  readonly conditions: ReadonlyArray<(object: object, value: unknown) => boolean>;
  readonly rules: readonly Rule[];
}

/**
 * The class's class-validator rules, read once and checked in a plain loop:
 * a fast "yes" for valid input, which is nearly all of it.
 *
 * `validateSync` looks every rule up again on each call, and builds a
 * `ValidationError` per property even when nothing is wrong; on a route
 * that takes thousands of requests a second that is worth skipping. This
 * check only ever answers whether all rules hold: when one does not,
 * the caller runs `validateSync`, which stays the one authority on what
 * is wrong and how it is said.
 *
 * Nested DTOs (`@ValidateNested()`) are checked with their own class's
 * compiled check. Classes that use what this check does not know (`each` on
 * other rules, groups, asynchronous constraints, `@IsDefined`) get no check
 * (undefined): their instances always go through `validateSync`.
 */
export function compileRuleCheck(metatype: Type): RuleCheck | undefined {
  const storage = getMetadataStorage();
  const byProperty = new Map<string, { conditions: PropertyRules['conditions'][number][]; rules: Rule[] }>();
  for (const metadata of storage.getTargetValidationMetadatas(metatype, '', false, false)) {
    const entry = byProperty.get(metadata.propertyName) ?? { conditions: [], rules: [] };
    byProperty.set(metadata.propertyName, entry);
    if (
      metadata.groups?.length ||
      metadata.always ||
      (metadata.each && metadata.type !== ValidationTypes.NESTED_VALIDATION)
    ) {
      return undefined;
    }
    if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      entry.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
      continue;
    }
    if (metadata.type === ValidationTypes.NESTED_VALIDATION && !metadata.validateIf) {
      entry.rules.push({ metadata, validate: isValidNested });
      continue;
    }
    if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION || metadata.validateIf) {
      return undefined;
    }
    for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
      if (constraint.async) {
        return undefined;
      }
      const { instance } = constraint;
      entry.rules.push({ metadata, validate: (value, args) => instance.validate(value, args) });
    }
  }
  const properties: PropertyRules[] = [...byProperty].map(([property, entry]) => ({ property, ...entry }));
  const targetName = metatype.name;

  return (instance) => {
    for (const { property, conditions, rules } of properties) {
      const value: unknown = (instance as Record<string, unknown>)[property];
      if (!conditions.every((condition) => condition(instance, value))) {
        continue;
      }
      for (const { metadata, validate } of rules) {
        const valid = validate(value, {
          targetName,
          property,
          object: instance,
          value,
          constraints: metadata.constraints,
        });
        // A promise is an asynchronous answer: leave it to validateSync.
        if (valid !== true) {
          return false;
        }
      }
    }
    return true;
  };
}

const nestedChecks = new WeakMap<object, RuleCheck | undefined>();

/**
 * `@ValidateNested()`'s rule: an object, or a list of objects, each keeping
 * its own class's rules. Anything else is left to `validateSync`.
 */
function isValidNested(value: unknown): boolean {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.every((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return false;
    }
    const type = item.constructor as Type;
    if (type === Object) {
      // A plain object: no class was named for it (`@Type()`), so there are no rules to keep.
      return false;
    }
    if (!nestedChecks.has(type)) {
      nestedChecks.set(type, compileRuleCheck(type));
    }
    return nestedChecks.get(type)?.(item) ?? false;
  });
}

import { type ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import * as classValidator from 'class-validator';
import { ValidationError, ValidationTypes, type ValidatorOptions } from 'class-validator';

import { keyForMessage } from '../http/json.js';

/** Past this many, problems are counted rather than named: a body can hold thousands. */
const MAX_NAMED_PROBLEMS = 5;

/** The keys Nest's pipe deletes from a value before it is transformed (`stripProtoKeys`). */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What ValidationPipe's exception factory makes: the problems, worded once the pipe knows their source. */
class InvalidInput {
  constructor(readonly errors: readonly ValidationError[]) {}
}

/** Each DTO instance's source, for `validate` to hold what the instance has against what was sent. */
const sources = new WeakMap<object, object>();
/** The paths of the keys Nest's pipe deleted from a source, by the source. */
const deletedKeys = new WeakMap<object, string[][]>();

const recordingTransformer = {
  plainToInstance: ((type: classTransformer.ClassConstructor<unknown>, plain: unknown, options) => {
    const instance = classTransformer.plainToInstance(type, plain, options);
    if (isObject(instance) && isObject(plain)) {
      sources.set(instance, plain);
    }
    return instance;
  }) as typeof classTransformer.plainToInstance,
  classToPlain: classTransformer.classToPlain,
};

/**
 * Nest's ValidationPipe, plus what it has no option for: a route that takes a DTO body needs one; one
 * message names each problem by its path (`items[0].sku must be …`) and an undeclared property by its
 * source (`query parameter offset is not allowed`); and a named parameter (`@Query('page')`) is left
 * for its own pipe (`ParseIntPipe`) rather than converted first.
 *
 * The whitelist judges what was sent, not what the instance holds. Nest deletes `__proto__`,
 * `constructor` and `prototype` before it transforms a value, and class-transformer skips any key
 * naming a member the instance inherits (`toString`, `valueOf`, a DTO's method or getter): each is
 * refused here by name, as an undeclared key is, rather than dropped. A property declared without a
 * rule (`text?: string;`) exists on every instance (ES2022 class fields), but counts only when sent.
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      stopAtFirstError: true,
      exceptionFactory: (errors) => new InvalidInput(errors),
      // Given, rather than left to the pipe to import when first used: the build bundles them.
      validatorPackage: classValidator,
      transformerPackage: recordingTransformer,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (value === undefined && metadata.type === 'body' && !metadata.data && this.toValidate(metadata)) {
      throw new BadRequestException('A JSON request body is required');
    }
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      throw error instanceof InvalidInput
        ? new BadRequestException(messageOf(error.errors, metadata))
        : error;
    }
  }

  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }

  protected override stripProtoKeys(value: unknown): void {
    const found = prototypeKeyPaths(value);
    if (found.length > 0) {
      deletedKeys.set(value as object, found);
    }
    super.stripProtoKeys(value);
  }

  protected override async validate(
    instance: object,
    validatorOptions?: ValidatorOptions,
  ): Promise<ValidationError[]> {
    const source = sources.get(instance);
    const { unsent, inherited } = compare(source, instance);
    // Out of the whitelist's sight (it reads Object.keys), its values still there for the rules.
    const hidden = unsent.filter(
      ([object, key]) => Object.getOwnPropertyDescriptor(object, key)?.configurable,
    );
    for (const [object, key] of hidden) {
      Object.defineProperty(object, key, { enumerable: false });
    }
    try {
      const errors = await super.validate(instance, validatorOptions);
      const undeclared = [...((source && deletedKeys.get(source)) ?? []), ...inherited];
      return [...errors, ...undeclared.map(undeclaredAt)];
    } finally {
      for (const [object, key] of hidden) {
        Object.defineProperty(object, key, { enumerable: true });
      }
    }
  }
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

/** Where a sent value (JSON's objects and arrays, or a query string's) holds a prototype key. */
function prototypeKeyPaths(root: unknown): string[][] {
  const found: string[][] = [];
  const pending: Array<[unknown, string[]]> = [[root, []]];
  for (let index = 0; index < pending.length; index++) {
    const [value, path] = pending[index];
    if (Array.isArray(value)) {
      value.forEach((item, position) => pending.push([item, [...path, String(position)]]));
    } else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (PROTOTYPE_KEYS.has(key)) {
          found.push([...path, key]);
        } else {
          pending.push([child, [...path, key]]);
        }
      }
    }
  }
  return found;
}

interface Comparison {
  /** Own properties of the instance (or of an object in it) that were not sent. */
  readonly unsent: Array<[object, string]>;
  /** Sent keys the instance does not have as its own, as they name a member it inherits. */
  readonly inherited: string[][];
}

/** Walks what was sent beside the instance made of it, breadth first so that problems come in the body's order. */
function compare(source: unknown, instance: unknown): Comparison {
  const unsent: Array<[object, string]> = [];
  const inherited: string[][] = [];
  const pending: Array<[unknown, unknown, string[]]> = [[source, instance, []]];
  for (let index = 0; index < pending.length; index++) {
    const [sent, made, path] = pending[index];
    if (!isObject(sent) || !isObject(made)) {
      continue;
    }
    if (Array.isArray(sent)) {
      if (Array.isArray(made)) {
        sent.forEach((item, position) => pending.push([item, made[position], [...path, String(position)]]));
      }
      continue;
    }
    for (const key of Object.keys(made)) {
      if (!Object.hasOwn(sent, key)) {
        unsent.push([made, key]);
      }
    }
    for (const [key, value] of Object.entries(sent)) {
      if (Object.hasOwn(made, key)) {
        pending.push([value, (made as Record<string, unknown>)[key], [...path, key]]);
      } else if (key in made) {
        inherited.push([...path, key]);
      }
    }
  }
  return { unsent, inherited };
}

/** The whitelist's error for an undeclared key, nested as class-validator nests its own. */
function undeclaredAt([property, ...below]: readonly string[]): ValidationError {
  const error = new ValidationError();
  error.property = property;
  error.children = below.length > 0 ? [undeclaredAt(below)] : [];
  if (below.length === 0) {
    error.constraints = { [ValidationTypes.WHITELIST]: `property ${property} should not exist` };
  }
  return error;
}

function messageOf(errors: readonly ValidationError[], { type }: ArgumentMetadata): string {
  const undeclared = type === 'body' ? 'property' : `${type} parameter`;
  const problems = errors.flatMap((error) => problemsOf(error, '', undeclared));
  const named = problems.slice(0, MAX_NAMED_PROBLEMS).join('; ');
  return problems.length > MAX_NAMED_PROBLEMS
    ? `${named}; and ${problems.length - MAX_NAMED_PROBLEMS} more`
    : named;
}

/**
 * The full path is rebuilt here: class-validator words a rule by the property's own name (`sku must
 * be …`) and lists an array's items as children named by their index.
 */
function problemsOf(error: ValidationError, parent: string, undeclared: string): string[] {
  const property = keyForMessage(error.property);
  const path =
    parent === '' ? property : /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
  const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => {
    if (rule === ValidationTypes.WHITELIST) {
      return `${undeclared} ${path} is not allowed`;
    }
    return message.startsWith(`${error.property} `)
      ? `${path}${message.slice(error.property.length)}`
      : `${path}: ${message}`;
  });
  return [...own, ...(error.children ?? []).flatMap((child) => problemsOf(child, path, undeclared))];
}

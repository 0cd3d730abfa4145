import { type ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import * as classValidator from 'class-validator';
import type { ValidationError } from 'class-validator';

import { keyForMessage } from '../http/json.js';

/** Past this many, problems are counted rather than named: a body can hold thousands. */
const MAX_NAMED_PROBLEMS = 5;

/** What ValidationPipe's exception factory makes: the problems, worded once the pipe knows their source. */
class InvalidInput {
  constructor(readonly errors: readonly ValidationError[]) {}
}

/**
 * Nest's ValidationPipe, plus what it has no option for: a route that takes a DTO body needs one; one
 * message names each problem by its path (`items[0].sku must be …`) and an undeclared property by its
 * source (`query parameter offset is not allowed`); and a named parameter (`@Query('page')`) is left
 * for its own pipe (`ParseIntPipe`) rather than converted first.
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
      transformerPackage: classTransformer,
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
    if (rule === 'whitelistValidation') {
      return `${undeclared} ${path} is not allowed`;
    }
    return message.startsWith(`${error.property} `)
      ? `${path}${message.slice(error.property.length)}`
      : `${path}: ${message}`;
  });
  return [...own, ...(error.children ?? []).flatMap((child) => problemsOf(child, path, undeclared))];
}

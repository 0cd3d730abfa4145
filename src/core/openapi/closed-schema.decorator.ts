import { applyDecorators } from '@nestjs/common';
import { ApiSchema, type ApiSchemaOptions } from '@nestjs/swagger';

const closedSchemaNames = new Set<string>();

/**
 * `@ApiSchema`, plus `additionalProperties: false` in the emitted document:
 * for request bodies, whose unknown properties are refused.
 */
export function ApiClosedSchema(options: ApiSchemaOptions & { name: string }): ClassDecorator {
  closedSchemaNames.add(options.name);
  return applyDecorators(ApiSchema(options));
}

export function isClosedSchema(name: string): boolean {
  return closedSchemaNames.has(name);
}

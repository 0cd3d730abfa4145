import type { Type } from '@nestjs/common';
import type { TypeHelpOptions } from 'class-transformer';
// The store `@Type()` writes to: class-transformer exports it from this module only.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';

interface TypeMetadataStore {
  findTypeMetadata(
    target: object,
    propertyName: string,
  ): { typeFunction: (options?: TypeHelpOptions) => unknown } | undefined;
}

/**
 * The class a nested property holds, or each item of it when it is a list,
 * as `@Type(() => Item)` names it; undefined when it names none.
 */
export function nestedTypeOf(target: Type, propertyName: string): Type | undefined {
  const metadata = (defaultMetadataStorage as TypeMetadataStore).findTypeMetadata(target, propertyName);
  const type = metadata?.typeFunction();
  return typeof type === 'function' ? (type as Type) : undefined;
}

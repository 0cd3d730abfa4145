import type { RequestMappingMetadata, RequestMethod } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * The keys under which Nest's routing decorators keep what they declare: `@Controller()` its path,
 * `@RequestMapping()` (and so `@Get()`, `@Post()`, …) its `RequestMappingMetadata`, each field
 * under its own name. Nest exports the keys only from `@nestjs/common/internal`, which it says is
 * not its API, and offers no public reader of a route's path and method: so they are named here,
 * once, after the public interface's fields, and declared-routes.spec.ts fails if a release of Nest
 * stores them elsewhere.
 */
const ROUTE_METADATA = { path: 'path', method: 'method' } as const satisfies {
  readonly [Field in keyof Required<RequestMappingMetadata>]: Field;
};

const reflector = new Reflector();

/** What Nest's `Reflector` reads metadata from: a class, or a handler (a method of its prototype). */
export type MetadataTarget = Parameters<Reflector['get']>[1];

/** The paths a `@Controller()` or a route handler declares, as written; undefined when none. */
export function declaredPaths(target: MetadataTarget): string[] | undefined {
  const paths = reflector.get<string | string[] | undefined>(ROUTE_METADATA.path, target);
  return paths === undefined ? undefined : [paths].flat();
}

/** The method a route handler answers; undefined for a method that is not a route. */
export function declaredMethod(handler: MetadataTarget): RequestMethod | undefined {
  return reflector.get<RequestMethod | undefined>(ROUTE_METADATA.method, handler);
}

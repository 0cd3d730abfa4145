import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, type ModulesContainer } from '@nestjs/core';

export interface DeclaredRoute {
  readonly controller: Type;
  readonly handler: object;
  /** `POST`, `GET`, … */
  readonly method: string;
  /** The full pattern, `/plants/:id`. */
  readonly path: string;
}

/** Read from the controllers' metadata, the source Nest's router is built from. */
export function declaredRoutes(modules: ModulesContainer): DeclaredRoute[] {
  const scanner = new MetadataScanner();
  const routes: DeclaredRoute[] = [];
  for (const module of modules.values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) {
        continue;
      }
      const controller = metatype as Type;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) {
          continue;
        }
        for (const prefix of pathsOf(Reflect.getMetadata(PATH_METADATA, controller))) {
          for (const path of pathsOf(Reflect.getMetadata(PATH_METADATA, handler))) {
            routes.push({
              controller,
              handler,
              method: RequestMethod[method],
              path: joinPaths(prefix, path),
            });
          }
        }
      }
    }
  }
  return routes;
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) {
    return metadata.map(String);
  }
  return [typeof metadata === 'string' ? metadata : '/'];
}

function joinPaths(prefix: string, path: string): string {
  return `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

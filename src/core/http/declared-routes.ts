import { Injectable, RequestMethod, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

import { declaredMethod, declaredPaths, type MetadataTarget } from './route-metadata.js';

export interface DeclaredRoute {
  readonly controller: Type;
  readonly handler: MetadataTarget;
  /** `POST`, `GET`, … */
  readonly method: string;
  /** The full pattern, `/plants/:id`. */
  readonly path: string;
}

/** The routes the application's controllers declare, found through Nest's `DiscoveryService`. */
@Injectable()
export class DeclaredRoutes {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** Read from the controllers' metadata, the source Nest's router is built from. */
  all(): DeclaredRoute[] {
    const routes: DeclaredRoute[] = [];
    for (const { metatype } of this.discovery.getControllers()) {
      if (!metatype) {
        continue;
      }
      const controller = metatype as Type;
      const prototype = controller.prototype as Record<string, MetadataTarget>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        const method = declaredMethod(handler);
        if (method === undefined) {
          continue;
        }
        for (const prefix of declaredPaths(controller) ?? ['/']) {
          for (const path of declaredPaths(handler) ?? ['/']) {
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
    return routes;
  }
}

function joinPaths(prefix: string, path: string): string {
  return `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

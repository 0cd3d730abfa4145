import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

import { declaredRoutes as routesOf } from '../../src/core/http/declared-routes.js';

/** Every route the application's controllers declare, as `METHOD /path`, sorted. */
export function declaredRoutes(app: INestApplication): string[] {
  return [
    ...new Set(routesOf(app.get(ModulesContainer)).map(({ method, path }) => `${method} ${path}`)),
  ].sort();
}

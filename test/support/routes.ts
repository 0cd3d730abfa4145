import type { INestApplication } from '@nestjs/common';

import { DeclaredRoutes } from '../../src/core/http/declared-routes.js';

/** Every route the application's controllers declare, as `METHOD /path`, sorted. */
export function declaredRoutes(app: INestApplication): string[] {
  return [
    ...new Set(
      app
        .get(DeclaredRoutes)
        .all()
        .map(({ method, path }) => `${method} ${path}`),
    ),
  ].sort();
}

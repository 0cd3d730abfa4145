import type { ModulesContainer } from '@nestjs/core';
import { match } from 'path-to-regexp';

import { declaredRoutes } from './declared-routes.js';

/**
 * The methods each declared path answers, for telling "no such resource"
 * (404) from "no such method here" (405 with `Allow`), from the routes the
 * controllers declare. Built on first use, when every module is loaded.
 */
export class AllowedMethods {
  private routes?: ReadonlyArray<{ readonly matches: (path: string) => boolean; readonly method: string }>;

  constructor(private readonly modules: ModulesContainer) {}

  for(path: string): string[] {
    this.routes ??= declaredRoutes(this.modules).map(({ path: pattern, method }) => {
      const matcher = match(pattern, { decode: false });
      return { matches: (candidate: string) => matcher(candidate) !== false, method };
    });
    const allowed = new Set(this.routes.filter((route) => route.matches(path)).map((route) => route.method));
    if (allowed.has('GET')) {
      allowed.add('HEAD');
    }
    return [...allowed].sort();
  }
}

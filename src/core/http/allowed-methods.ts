import { Injectable } from '@nestjs/common';
import { match } from 'path-to-regexp';

import { DeclaredRoutes } from './declared-routes.js';

/** Tells 404 from 405 with `Allow`; built on first use, once every module is loaded. */
@Injectable()
export class AllowedMethods {
  private routes?: ReadonlyArray<{ readonly matches: (path: string) => boolean; readonly method: string }>;

  constructor(private readonly declared: DeclaredRoutes) {}

  for(path: string): string[] {
    this.routes ??= this.declared.all().map(({ path: pattern, method }) => {
      // Case-sensitive, as the router is (see createApp).
      const matcher = match(pattern, { decode: false, sensitive: true });
      return { matches: (candidate: string) => matcher(candidate) !== false, method };
    });
    const allowed = new Set(this.routes.filter((route) => route.matches(path)).map((route) => route.method));
    if (allowed.has('GET')) {
      allowed.add('HEAD');
    }
    return [...allowed].sort();
  }
}

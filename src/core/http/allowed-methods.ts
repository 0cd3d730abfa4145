import type { Express } from 'express';
import { match } from 'path-to-regexp';

interface RouteLayer {
  readonly route?: { readonly path: unknown; readonly methods: Record<string, boolean> };
}

/**
 * The methods each registered path answers, for telling "no such resource"
 * (404) from "no such method here" (405 with `Allow`). Built on first use,
 * when every route is registered.
 */
export class AllowedMethods {
  private routes?: ReadonlyArray<{ readonly matches: (path: string) => boolean; readonly methods: string[] }>;

  constructor(private readonly express: Express) {}

  for(path: string): string[] {
    const allowed = new Set<string>();
    for (const route of this.table()) {
      if (route.matches(path)) {
        route.methods.forEach((method) => allowed.add(method));
      }
    }
    if (allowed.has('GET')) {
      allowed.add('HEAD');
    }
    return [...allowed].sort();
  }

  private table() {
    this.routes ??= ((this.express.router as unknown as { stack: RouteLayer[] }).stack ?? []).flatMap(
      ({ route }) => {
        if (typeof route?.path !== 'string') {
          return [];
        }
        const matcher = match(route.path, { decode: false });
        const methods = Object.keys(route.methods)
          .filter((method) => route.methods[method] && method !== '_all')
          .map((method) => method.toUpperCase());
        return [{ matches: (path: string) => matcher(path) !== false, methods }];
      },
    );
    return this.routes;
  }
}

import type { INestApplication } from '@nestjs/common';

import { requiredScopesOf } from '../../src/core/auth/scopes.js';
import { DeclaredRoutes } from '../../src/core/http/declared-routes.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

/** What every guarded operation can answer, whatever it does: the guards' and the exception filter's. */
export const PLATFORM_ERROR_STATUSES = ['401', '429', '500', '503'];

const OPERATION_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
  'search',
  'query',
];

/**
 * The scope each of the application's routes needs, as the bearer guard
 * derives it, keyed as the document names the operation: `GET /plants/{id}`.
 */
export function scopesByOperation(app: INestApplication): Map<string, string> {
  const scopes = new Map<string, string>();
  for (const { controller, handler, method, path } of app.get(DeclaredRoutes).all()) {
    const [scope] = requiredScopesOf(controller, handler);
    if (scope) {
      scopes.set(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`, scope);
    }
  }
  return scopes;
}

/**
 * Where a guarded operation (one whose `security` is not `[]`: every one not
 * `@Public()`) does not document a failure the platform answers on it: 401,
 * 429, 500 and 503, and 403 where `scopes` says it needs a scope, each with
 * the `Error` schema and an example of its own status (a 403's names the
 * scope).
 */
export function platformErrorGaps(document: Document, scopes: ReadonlyMap<string, string>): string[] {
  const gaps: string[] = [];
  for (const [path, pathItem] of Object.entries(document.paths as Document)) {
    for (const method of OPERATION_METHODS.filter((name) => pathItem[name])) {
      const operation = pathItem[method] as Document;
      const security = (operation.security ?? document.security) as unknown[] | undefined;
      if (security?.length === 0) {
        continue;
      }
      const name = `${method.toUpperCase()} ${path}`;
      const scope = scopes.get(name);
      for (const status of [...PLATFORM_ERROR_STATUSES, ...(scope ? ['403'] : [])]) {
        const content = operation.responses?.[status]?.content?.['application/json'] as Document | undefined;
        if (!content) {
          gaps.push(`${name}: no ${status}`);
        } else if (content.schema?.$ref !== '#/components/schemas/Error') {
          gaps.push(`${name}: ${status} is not an Error`);
        } else if (
          content.example?.error !== Number(status) ||
          typeof content.example?.message !== 'string'
        ) {
          gaps.push(`${name}: ${status} has no example of its own`);
        } else if (status === '403' && !(content.example.message as string).includes(scope!)) {
          gaps.push(`${name}: 403's example does not name ${scope}`);
        }
      }
    }
  }
  return gaps;
}

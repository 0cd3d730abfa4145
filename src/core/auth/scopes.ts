import { RequestMethod } from '@nestjs/common';
import type { Request } from 'express';

import { declaredMethod, declaredPaths, type MetadataTarget } from '../http/route-metadata.js';
import { BearerChallenge } from './bearer-challenge.js';
import './principal.js';

/** `<resource>:read` or `<resource>:write`; static tokens carry every scope, JWTs their `scope`/`scp`. */
export type Scope = `${string}:${string}`;

export const REQUIRED_SCOPES_KEY = 'auth:requiredScopes';

/**
 * For a route whose derived scopes are not right: every scope named on a handler (or controller)
 * counts, and a handler's replace its controller's.
 */
export function RequireScopes(...scopes: Scope[]): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value as object | undefined) ?? target;
    const named = (Reflect.getMetadata(REQUIRED_SCOPES_KEY, holder) as Scope[] | undefined) ?? [];
    Reflect.defineMetadata(REQUIRED_SCOPES_KEY, [...new Set([...named, ...scopes])], holder);
  };
}

const READING_METHODS = new Set([RequestMethod.GET, RequestMethod.HEAD, RequestMethod.OPTIONS]);
/** They answer the whole record, fields not sent included: a token that may only write must not read through them. */
const REPLYING_CHANGES = new Set([RequestMethod.PATCH, RequestMethod.PUT]);

/**
 * Those named with `@RequireScopes()`, or else `<resource>:read` to read, `<resource>:write` for
 * anything else, and both for `PATCH` and `PUT`, the resource being the controller path's first
 * segment; none outside a resource.
 */
export function requiredScopesOf(controller: MetadataTarget, handler: MetadataTarget): readonly Scope[] {
  const named =
    (Reflect.getMetadata(REQUIRED_SCOPES_KEY, handler) as Scope[] | undefined) ??
    (Reflect.getMetadata(REQUIRED_SCOPES_KEY, controller) as Scope[] | undefined);
  if (named) {
    return named;
  }
  const resource = declaredPaths(controller)?.[0]
    ?.split('/')
    .find((segment) => segment.length > 0);
  if (!resource || resource.startsWith(':')) {
    return [];
  }
  const method = declaredMethod(handler);
  if (method !== undefined && READING_METHODS.has(method)) {
    return [`${resource}:read`];
  }
  return method !== undefined && REPLYING_CHANGES.has(method)
    ? [`${resource}:read`, `${resource}:write`]
    : [`${resource}:write`];
}

/**
 * For a scope a route needs only for some requests (`?deleted=only`, say), checked in its handler: 403
 * with the challenge naming it, as the guard answers, when the request's principal lacks it.
 */
export function requireScope(request: Request, scope: Scope): void {
  if (!request.principal?.hasScope(scope)) {
    throw BearerChallenge.insufficientScope(scope);
  }
}

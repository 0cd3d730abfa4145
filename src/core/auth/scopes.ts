import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';

/**
 * What a token may do: `<resource>:read` or `<resource>:write`. Static tokens
 * carry every scope; JWTs carry those in their `scope`/`scp` claim.
 */
export type Scope = `${string}:${string}`;

export const REQUIRED_SCOPES_KEY = 'auth:requiredScopes';

/**
 * The scopes a route needs, on top of a valid token, where the ones it would
 * be given are not right: every one named, by this decorator and by any other
 * `@RequireScopes()` on the same handler (or controller). A handler's replace
 * its controller's.
 */
export function RequireScopes(...scopes: Scope[]): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value as object | undefined) ?? target;
    const named = (Reflect.getMetadata(REQUIRED_SCOPES_KEY, holder) as Scope[] | undefined) ?? [];
    Reflect.defineMetadata(REQUIRED_SCOPES_KEY, [...new Set([...named, ...scopes])], holder);
  };
}

const READING_METHODS = new Set([RequestMethod.GET, RequestMethod.HEAD, RequestMethod.OPTIONS]);

/**
 * The scopes a route needs: those it names with `@RequireScopes()` (on the
 * handler, else on the controller), or else one derived from where it is:
 * `<resource>:read` to read (GET, HEAD) and `<resource>:write` for anything
 * else, the resource being the first segment of the controller's path
 * (`@Controller('gadgets')` → `gadgets:read`, `gadgets:write`). A route
 * outside any resource's path needs a valid token and no scope.
 */
export function requiredScopesOf(controller: object, handler: object): readonly Scope[] {
  const named =
    (Reflect.getMetadata(REQUIRED_SCOPES_KEY, handler) as Scope[] | undefined) ??
    (Reflect.getMetadata(REQUIRED_SCOPES_KEY, controller) as Scope[] | undefined);
  if (named) {
    return named;
  }
  const path = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
  const resource = (Array.isArray(path) ? path[0] : path)?.split('/').find((segment) => segment.length > 0);
  if (!resource || resource.startsWith(':')) {
    return [];
  }
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return [`${resource}:${method !== undefined && READING_METHODS.has(method) ? 'read' : 'write'}`];
}

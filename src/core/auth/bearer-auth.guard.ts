import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { recordPrincipal } from '../logging/request-context.js';
import { AuthFailureLimiter } from './auth-failure.limiter.js';
import { AccessTokenVerifier } from './access-token.verifier.js';
import { BearerChallenge } from './bearer-challenge.js';
import { hasRepeatedAuthorization, readBearerCredentials } from './bearer-token.js';
import type { Principal } from './principal.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { requiredScopesOf, type Scope } from './scopes.js';

/**
 * Deny by default: a valid bearer token unless the route is `@Public()`, and the scopes it needs
 * (`requiredScopesOf`). An address's lockout refuses only its failures, never a valid token, so that
 * nobody behind the same NAT or a spoofed proxy header can lock a client out by failing in its name.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly failures: AuthFailureLimiter,
  ) {}

  /** What each route asks for, read from its metadata once rather than on every request. */
  private readonly routes = new WeakMap<object, RouteAuth>();

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const { isPublic, requiredScopes } = this.routeAuth(context);
    if (isPublic) {
      return true;
    }
    // The request itself, without switchToHttp(), which makes three functions on every call (scripts/bundle.js).
    const request = context.getArgByIndex<Request>(0);
    const { authorization } = request.headers;
    if (authorization !== undefined && hasRepeatedAuthorization(request.rawHeaders)) {
      throw BearerChallenge.repeatedAuthorization();
    }
    const credentials = readBearerCredentials(authorization);
    if (credentials.kind === 'none') {
      throw BearerChallenge.missingToken();
    }
    if (credentials.kind === 'malformed') {
      return this.refuse(request);
    }
    const principal = this.verifier.verify(credentials.token);
    if (principal instanceof Promise) {
      return principal.then((resolved) =>
        resolved ? admit(request, resolved, requiredScopes) : this.refuse(request),
      );
    }
    return principal ? admit(request, principal, requiredScopes) : this.refuse(request);
  }

  private routeAuth(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let auth = this.routes.get(handler);
    if (!auth) {
      const targets = [handler, context.getClass()];
      auth = {
        isPublic: this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) ?? false,
        requiredScopes: requiredScopesOf(context.getClass(), handler),
      };
      this.routes.set(handler, auth);
    }
    return auth;
  }

  /** 429 while the address is locked out, without counting again; else the failure counts, and 401 (429 for the one that reaches the limit). */
  private async refuse(request: Request): Promise<never> {
    await this.failures.assertAllowed(request.ip);
    throw BearerChallenge.invalidToken(await this.failures.recordFailure(request.ip));
  }
}

interface RouteAuth {
  readonly isPublic: boolean;
  readonly requiredScopes: readonly Scope[];
}

function admit(request: Request, principal: Principal, requiredScopes: readonly Scope[]): true {
  const missing = requiredScopes.find((scope) => !principal.hasScope(scope));
  if (missing) {
    throw BearerChallenge.insufficientScope(missing);
  }
  request.principal = principal;
  recordPrincipal(principal.subject, principal.issuer);
  return true;
}

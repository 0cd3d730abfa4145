import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { AccessTokenVerifier } from './access-token.verifier.js';
import { BearerChallenge } from './bearer-challenge.js';
import { readBearerCredentials } from './bearer-token.js';
import type { Principal } from './principal.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { REQUIRED_SCOPES_KEY, type Scope } from './scopes.js';

/**
 * Deny by default: every route needs a valid bearer token unless it is marked
 * `@Public()`, and the scopes it names with `@RequireScopes()`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets)) {
      return true;
    }
    const request = context.switchToHttp().getRequest<Request>();
    const credentials = readBearerCredentials(request.headers.authorization);
    if (credentials.kind === 'none') {
      throw BearerChallenge.missingToken();
    }
    if (credentials.kind === 'malformed') {
      throw BearerChallenge.invalidToken();
    }
    const requiredScopes =
      this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES_KEY, targets) ?? [];
    const principal = this.verifier.verify(credentials.token);
    return principal instanceof Promise
      ? principal.then((resolved) => admit(request, resolved, requiredScopes))
      : admit(request, principal, requiredScopes);
  }
}

function admit(request: Request, principal: Principal | undefined, requiredScopes: readonly Scope[]): true {
  if (!principal) {
    throw BearerChallenge.invalidToken();
  }
  const missing = requiredScopes.find((scope) => !principal.hasScope(scope));
  if (missing) {
    throw BearerChallenge.insufficientScope(missing);
  }
  request.principal = principal;
  return true;
}

import { createHash } from 'node:crypto';

import { type ExecutionContext, HttpException, HttpStatus } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { HttpExceptionWithHeaders } from '../errors/error-status.js';
import { AccessTokenVerifier } from './access-token.verifier.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { Public } from './public.decorator.js';
import { RequireScopes } from './scopes.js';
import { StaticTokenVerifier } from './static-token.verifier.js';

const TOKEN = 'unit-test-token-0123456789';

class Routes {
  @Public()
  open(): void {}

  closed(): void {}

  @RequireScopes('plants:write')
  write(): void {}
}

function contextFor(
  handler: keyof Routes,
  authorization?: string,
): { context: ExecutionContext; request: Request } {
  const request = { headers: authorization === undefined ? {} : { authorization } } as Request;
  const context = {
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { context, request };
}

function refusal(run: () => unknown): { status: number; challenge?: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpException);
    const headers = error instanceof HttpExceptionWithHeaders ? error.headers : {};
    return { status: (error as HttpException).getStatus(), challenge: headers['WWW-Authenticate'] };
  }
  throw new Error('the guard let the request through');
}

describe('BearerAuthGuard', () => {
  const digest = createHash('sha256').update(TOKEN).digest();
  const guard = new BearerAuthGuard(
    new Reflector(),
    new AccessTokenVerifier(new StaticTokenVerifier([{ sha256: digest }])),
  );

  it('lets a @Public() route through without a token', () => {
    expect(guard.canActivate(contextFor('open').context)).toBe(true);
  });

  it('admits a valid token on any scheme spelling and records the principal', () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
      const { context, request } = contextFor('write', header);

      expect(guard.canActivate(context)).toBe(true);
      expect(request.principal?.subject).toBe('static-token-1');
    }
  });

  it('asks for a token, without an error code, when none was sent (RFC 6750 §3.1)', () => {
    for (const header of [undefined, '', `Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearerx abc']) {
      expect(refusal(() => guard.canActivate(contextFor('closed', header).context))).toStrictEqual({
        status: HttpStatus.UNAUTHORIZED,
        challenge: 'Bearer realm="plant-store"',
      });
    }
  });

  it('answers invalid_token to a wrong or malformed bearer token', () => {
    for (const header of [
      `Bearer ${TOKEN}x`,
      'Bearer',
      'Bearer ',
      'Bearer a b',
      `Bearer ${'x'.repeat(10_000)}`,
    ]) {
      expect(refusal(() => guard.canActivate(contextFor('closed', header).context))).toStrictEqual({
        status: HttpStatus.UNAUTHORIZED,
        challenge: 'Bearer realm="plant-store", error="invalid_token"',
      });
    }
  });

  it('answers 403 insufficient_scope to a valid token without the scope the route needs', () => {
    const limited = new BearerAuthGuard(new Reflector(), {
      verify: () => ({ subject: 'reader', hasScope: (scope: string) => scope === 'plants:read' }),
    } as unknown as AccessTokenVerifier);

    expect(refusal(() => limited.canActivate(contextFor('write', `Bearer ${TOKEN}`).context))).toStrictEqual({
      status: HttpStatus.FORBIDDEN,
      challenge: 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    });
  });
});

import { createHash } from 'node:crypto';

import { type ExecutionContext, HttpException, HttpStatus } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

import { httpContext } from '../../../test/support/execution-context.js';
import type { AuthConfig } from '../config/auth.config.js';
import { HttpExceptionWithHeaders } from '../errors/error-status.js';
import { AuthFailureLimiter } from './auth-failure.limiter.js';
import { FixedWindowThrottlerStorage } from '../rate-limit/fixed-window.storage.js';
import { RateLimitStorage } from '../rate-limit/rate-limit.storage.js';
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
  authorization?: string | string[],
): { context: ExecutionContext; request: Request } {
  const sent = authorization === undefined ? [] : [authorization].flat();
  // As Node reads them: the first Authorization in `headers`, every one in `rawHeaders`.
  const request = {
    headers: sent.length === 0 ? {} : { authorization: sent[0] },
    rawHeaders: sent.flatMap((value, index) => [index % 2 ? 'authorization' : 'Authorization', value]),
  } as Request;
  // Nest's own context, as a guard gets it for an HTTP request.
  const context = httpContext(request, Routes, Routes.prototype[handler]);
  return { context, request };
}

async function refusal(
  run: () => unknown,
): Promise<{ status: number; challenge?: string; retryAfter?: string }> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpException);
    const headers = error instanceof HttpExceptionWithHeaders ? error.headers : {};
    const refused = { status: (error as HttpException).getStatus(), challenge: headers['WWW-Authenticate'] };
    return headers['Retry-After'] ? { ...refused, retryAfter: headers['Retry-After'] } : refused;
  }
  throw new Error('the guard let the request through');
}

function limiter(
  limit = 1_000,
  storage: RateLimitStorage = new FixedWindowThrottlerStorage(),
): AuthFailureLimiter {
  return new AuthFailureLimiter(storage, {
    failureLimit: { limit, windowMs: 60_000 },
  } as AuthConfig);
}

/** Counters that answer later, as Redis does. */
class RemoteStorage extends RateLimitStorage {
  private readonly counters = new FixedWindowThrottlerStorage();

  increment(...hit: Parameters<RateLimitStorage['increment']>) {
    return this.counters.increment(...hit);
  }

  blockedFor(key: string): Promise<number> {
    return Promise.resolve(this.counters.blockedFor(key));
  }
}

describe('BearerAuthGuard', () => {
  const digest = createHash('sha256').update(TOKEN).digest();
  const verifier = new AccessTokenVerifier(new StaticTokenVerifier([{ sha256: digest }]));
  const guard = new BearerAuthGuard(new Reflector(), verifier, limiter());

  it('lets a @Public() route through without a token', () => {
    expect(guard.canActivate(contextFor('open').context)).toBe(true);
  });

  it('admits a valid token on any scheme spelling and records the principal', () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
      const { context, request } = contextFor('write', header);

      expect(guard.canActivate(context)).toBe(true);
      expect(request.principal?.subject).toMatch(/^token:[0-9a-f]{8}$/);
    }
  });

  it.each([
    [
      'asks for a token, without an error code, when none was sent (RFC 6750 §3.1)',
      [undefined, '', `Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearerx abc'],
      'Bearer realm="plant-store"',
    ],
    [
      'answers invalid_token to a wrong or malformed bearer token',
      [`Bearer ${TOKEN}x`, 'Bearer', 'Bearer ', 'Bearer a b', `Bearer ${'x'.repeat(10_000)}`],
      'Bearer realm="plant-store", error="invalid_token"',
    ],
  ])('%s', async (_title, headers, challenge) => {
    for (const header of headers) {
      await expect(
        refusal(() => guard.canActivate(contextFor('closed', header).context)),
      ).resolves.toStrictEqual({ status: HttpStatus.UNAUTHORIZED, challenge });
    }
  });

  it('answers 400 invalid_request to more than one Authorization header, valid or not, whichever comes first', async () => {
    for (const headers of [
      [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, 'Bearer wrong-token-0123456789'],
      ['Bearer wrong-token-0123456789', `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, ''],
      [`Basic ${Buffer.from('a:b').toString('base64')}`, `Bearer ${TOKEN}`],
    ]) {
      const { context, request } = contextFor('closed', headers);

      await expect(refusal(() => guard.canActivate(context))).resolves.toStrictEqual({
        status: HttpStatus.BAD_REQUEST,
        challenge: 'Bearer realm="plant-store", error="invalid_request"',
      });
      expect(request.principal).toBeUndefined();
    }
  });

  it('answers 403 insufficient_scope to a valid token without the scope the route needs', async () => {
    const limited = new BearerAuthGuard(
      new Reflector(),
      {
        verify: () => ({ subject: 'reader', hasScope: (scope: string) => scope === 'plants:read' }),
      } as unknown as AccessTokenVerifier,
      limiter(),
    );

    await expect(
      refusal(() => limited.canActivate(contextFor('write', `Bearer ${TOKEN}`).context)),
    ).resolves.toStrictEqual({
      status: HttpStatus.FORBIDDEN,
      challenge: 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    });
  });

  it.each([
    ['in memory, checked at once', () => limiter(3)],
    ['elsewhere, checked asynchronously', () => limiter(3, new RemoteStorage())],
  ])(
    'refuses bad tokens from an address with 429 once it has failed too often, and still serves valid ones (counters %s)',
    async (_counters, strictLimiter) => {
      const strict = new BearerAuthGuard(new Reflector(), verifier, strictLimiter());
      const contextFrom = (address: string, token: string) => {
        const { context, request } = contextFor('closed', `Bearer ${token}`);
        Object.assign(request, { ip: address });
        return { context, request };
      };
      const attempt = (token: string, address = '203.0.113.7') =>
        refusal(() => strict.canActivate(contextFrom(address, token).context));

      for (let failure = 1; failure <= 3; failure++) {
        await expect(attempt('wrong-token-0123456789')).resolves.toMatchObject({ status: 401 });
      }
      await expect(attempt('wrong-token-0123456789')).resolves.toStrictEqual({
        status: HttpStatus.TOO_MANY_REQUESTS,
        challenge: undefined,
        retryAfter: '60',
      });
      await expect(attempt('Bearer')).resolves.toMatchObject({ status: HttpStatus.TOO_MANY_REQUESTS });

      // Someone else's failures from the same address do not keep a valid token out.
      const { context, request } = contextFrom('203.0.113.7', TOKEN);
      await expect(Promise.resolve(strict.canActivate(context))).resolves.toBe(true);
      expect(request.principal?.subject).toMatch(/^token:[0-9a-f]{8}$/);
      // Nor do they count against another address.
      await expect(attempt('wrong-token-0123456789', '203.0.113.8')).resolves.toMatchObject({ status: 401 });
    },
  );

  it('admits a valid token without asking counters held elsewhere', () => {
    const remote = new BearerAuthGuard(new Reflector(), verifier, limiter(3, new RemoteStorage()));
    const { context, request } = contextFor('closed', `Bearer ${TOKEN}`);

    expect(remote.canActivate(context)).toBe(true);
    expect(request.principal?.subject).toMatch(/^token:[0-9a-f]{8}$/);
  });
});

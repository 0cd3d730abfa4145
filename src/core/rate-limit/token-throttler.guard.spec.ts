import { jest } from '@jest/globals';
import { type ExecutionContext, HttpException, HttpStatus } from '@nestjs/common';
import { SkipThrottle, Throttle, type ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';

import { httpContext } from '../../../test/support/execution-context.js';
import type { HttpExceptionWithHeaders } from '../errors/error-status.js';
import { FixedWindowThrottlerStorage } from './fixed-window.storage.js';
import { TOKEN_THROTTLER, TokenThrottlerGuard } from './token-throttler.guard.js';

@Throttle({ [TOKEN_THROTTLER]: { limit: 3, ttl: 60_000 } })
class Routes {
  plain(): void {}

  @Throttle({ [TOKEN_THROTTLER]: { limit: 1, ttl: 60_000 } })
  strict(): void {}

  @SkipThrottle({ [TOKEN_THROTTLER]: true })
  unlimited(): void {}

  @Throttle({ [TOKEN_THROTTLER]: { limit: (context) => (isAdmin(context) ? 5 : 2), ttl: 60_000 } })
  byRequest(): void {}

  @Throttle({ [TOKEN_THROTTLER]: { limit: (() => 'many') as unknown as number, ttl: 60_000 } })
  misconfigured(): void {}
}

function isAdmin(context: ExecutionContext): boolean {
  return context.switchToHttp().getRequest<Request>().principal?.subject === 'admin';
}

function contextFor(handler: keyof Routes, subject?: string, response: object = {}): ExecutionContext {
  const request = {
    headers: {},
    principal: subject === undefined ? undefined : { subject, hasScope: () => true },
  } as unknown as Request;
  // Nest's own context, as a guard gets it for an HTTP request.
  return httpContext(request, Routes, Routes.prototype[handler], response);
}

/** How many of `attempts` calls pass before the guard answers 429. */
async function allowed(
  guard: TokenThrottlerGuard,
  context: () => ExecutionContext,
  attempts = 8,
): Promise<number> {
  let passed = 0;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      expect(await guard.canActivate(context())).toBe(true);
      passed++;
    } catch (error) {
      expect(error).toBeInstanceOf(HttpException);
      expect((error as HttpException).getStatus()).toBe(HttpStatus.TOO_MANY_REQUESTS);
    }
  }
  return passed;
}

describe('TokenThrottlerGuard', () => {
  let storage: FixedWindowThrottlerStorage;

  async function guardWith(
    throttler: Partial<ThrottlerOptions> = {},
    setHeaders = false,
  ): Promise<TokenThrottlerGuard> {
    const guard = new TokenThrottlerGuard(
      { setHeaders, throttlers: [{ name: TOKEN_THROTTLER, limit: 4, ttl: 60_000, ...throttler }] },
      storage,
    );
    await guard.onModuleInit();
    return guard;
  }

  beforeEach(() => {
    storage = new FixedWindowThrottlerStorage();
  });

  afterEach(() => {
    storage.onModuleDestroy();
  });

  it('counts per principal, with the controller’s limit, and leaves other principals alone', async () => {
    const guard = await guardWith();

    expect(await allowed(guard, () => contextFor('plain', 'alice'))).toBe(3);
    expect(await allowed(guard, () => contextFor('plain', 'bob'), 2)).toBe(2);
  });

  it('lets the handler’s own @Throttle() override its controller’s', async () => {
    const guard = await guardWith();

    expect(await allowed(guard, () => contextFor('strict', 'alice'))).toBe(1);
  });

  it('does not count a route under @SkipThrottle(), nor a request without a principal', async () => {
    const guard = await guardWith();

    expect(await allowed(guard, () => contextFor('unlimited', 'alice'))).toBe(8);
    expect(await allowed(guard, () => contextFor('plain'))).toBe(8);
  });

  it('reads a limit that depends on the request on every request', async () => {
    const guard = await guardWith();

    expect(await allowed(guard, () => contextFor('byRequest', 'alice'))).toBe(2);
    expect(await allowed(guard, () => contextFor('byRequest', 'admin'))).toBe(5);
  });

  it('reads a route’s @Throttle() and @SkipThrottle() once per handler, not on every request', async () => {
    const guard = await guardWith();
    await guard.canActivate(contextFor('strict', 'alice'));
    await guard.canActivate(contextFor('unlimited', 'alice'));
    const lookups = jest.spyOn(Reflect, 'getMetadata');

    try {
      await guard.canActivate(contextFor('strict', 'bob'));
      await guard.canActivate(contextFor('unlimited', 'bob'));

      expect(lookups).not.toHaveBeenCalled();
      expect(await allowed(guard, () => contextFor('strict', 'carol'))).toBe(1);
      expect(await allowed(guard, () => contextFor('unlimited', 'carol'))).toBe(8);
    } finally {
      lookups.mockRestore();
    }
  });

  it('falls back on the library’s own canActivate when the decorators’ keys cannot be read back', async () => {
    const metadataKeys = jest.spyOn(Reflect, 'getOwnMetadataKeys').mockReturnValue([]);
    const guard = await guardWith().finally(() => metadataKeys.mockRestore());
    const lookups = jest.spyOn(Reflect, 'getMetadata');

    try {
      expect(await allowed(guard, () => contextFor('strict', 'alice'))).toBe(1);
      expect(await allowed(guard, () => contextFor('unlimited', 'alice'))).toBe(8);
      expect(lookups).toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('skips when the throttler’s skipIf says so', async () => {
    const guard = await guardWith({ skipIf: (context) => isAdmin(context) });

    expect(await allowed(guard, () => contextFor('strict', 'admin'))).toBe(8);
    expect(await allowed(guard, () => contextFor('strict', 'alice'))).toBe(1);
  });

  it('refuses a limit that is not a number, as the library does', async () => {
    const guard = await guardWith();

    await expect(guard.canActivate(contextFor('misconfigured', 'alice'))).rejects.toThrow(
      'Invalid "limit" for the "token" throttler: expected a number, got "many".',
    );
  });

  it('tells each counted request what is left of its budget, and the 429 that it is spent', async () => {
    const guard = await guardWith({}, true);
    const sent: Array<Record<string, string>> = [];
    const response = () => {
      const headers: Record<string, string> = {};
      sent.push(headers);
      return { setHeader: (name: string, value: string) => (headers[name] = value) };
    };

    for (let request = 0; request < 3; request++) {
      await guard.canActivate(contextFor('plain', 'alice', response()));
    }
    const refused = await guard
      .canActivate(contextFor('plain', 'alice', response()))
      .catch((error: unknown) => error);

    expect(sent.slice(0, 3)).toStrictEqual(
      [2, 1, 0].map((left) => ({
        'RateLimit-Policy': '"token";q=3;w=60',
        RateLimit: `"token";r=${left};t=60`,
      })),
    );
    expect(refused).toBeInstanceOf(HttpException);
    expect((refused as HttpExceptionWithHeaders).headers).toStrictEqual({
      'RateLimit-Policy': '"token";q=3;w=60',
      RateLimit: '"token";r=0;t=60',
      'Retry-After': '60',
    });
    expect(sent[3]).toStrictEqual({});
  });
});

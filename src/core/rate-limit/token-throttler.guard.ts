import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  type Resolvable,
  type ThrottlerGenerateKeyFunction,
  type ThrottlerGetTrackerFunction,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
// The metadata keys `@Throttle()` and `@SkipThrottle()` write; the package's index does not export them.
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants.js';
import type { Request } from 'express';

import '../auth/principal.js';
import { tooManyRequests } from './too-many-requests.js';

export const TOKEN_THROTTLER = 'token';

interface ThrottleSettings {
  readonly limit: number;
  readonly ttl: number;
  readonly blockDuration: number;
}

/** One throttler's settings for one route: its own (`@Throttle()`, `@SkipThrottle()`) over the module's. */
export interface RouteThrottle {
  readonly throttler: ThrottlerOptions & { readonly name: string };
  readonly skip: boolean;
  /** The throttler's own, or the module's. */
  readonly skipIf: ThrottlerOptions['skipIf'];
  readonly limit: Resolvable<number>;
  readonly ttl: Resolvable<number>;
  /** Absent: the route's ttl. */
  readonly blockDuration: Resolvable<number> | undefined;
  /** The three numbers, when none of them depends on the request. */
  readonly settings: ThrottleSettings | undefined;
  readonly getTracker: ThrottlerGetTrackerFunction;
  readonly generateKey: ThrottlerGenerateKeyFunction;
}

/**
 * Requests per token, counted after authentication: the tracker is the
 * authenticated principal (never the token itself), so every address a
 * client uses shares its budget. Public routes are not counted.
 *
 * Each route's settings are read from its metadata once, when the route is
 * first called: `@nestjs/throttler`'s own check reads five metadata keys per
 * throttler on every request, each built by concatenation, and waits on each
 * setting even when it is a plain number. Decorators write route metadata
 * when the classes are defined, and it does not change afterwards. The count
 * itself, the 429 and any headers are the library's (`handleRequest`).
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  private readonly routes = new WeakMap<object, WeakMap<object, readonly RouteThrottle[]>>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storageService: ThrottlerStorage,
  ) {
    super(options, storageService, new Reflector());
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    // The request itself, without switchToHttp(), which makes three functions on every call (scripts/bundle.js).
    if (context.getArgByIndex<Request>(0).principal === undefined) {
      return true;
    }
    for (const route of this.routeThrottles(context)) {
      if (route.skip || route.skipIf?.(context)) {
        continue;
      }
      const { limit, ttl, blockDuration } = route.settings ?? (await this.resolveSettings(context, route));
      await this.handleRequest({
        context,
        limit,
        ttl,
        blockDuration,
        throttler: route.throttler,
        getTracker: route.getTracker,
        generateKey: route.generateKey,
      });
    }
    return true;
  }

  /** The library's hook for where the request and response are: as in HTTP, without switchToHttp(). */
  protected override getRequestResponse(context: ExecutionContext): {
    req: Record<string, unknown>;
    res: Record<string, unknown>;
  } {
    return { req: context.getArgByIndex(0), res: context.getArgByIndex(1) };
  }

  /** The route's settings per throttler, in the library's order, read at its first request. */
  routeThrottles(context: ExecutionContext): readonly RouteThrottle[] {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = this.routes.get(handler);
    if (!byController) {
      byController = new WeakMap();
      this.routes.set(handler, byController);
    }
    let throttles = byController.get(controller);
    if (!throttles) {
      const targets = [handler, controller];
      const read = <T>(key: string, name: string) =>
        this.reflector.getAllAndOverride<T | undefined>(key + name, targets);
      throttles = (this.throttlers as RouteThrottle['throttler'][]).map((throttler) => {
        const limit = read<Resolvable<number>>(THROTTLER_LIMIT, throttler.name) ?? throttler.limit;
        const ttl = read<Resolvable<number>>(THROTTLER_TTL, throttler.name) ?? throttler.ttl;
        const blockDuration =
          read<Resolvable<number>>(THROTTLER_BLOCK_DURATION, throttler.name) ?? throttler.blockDuration;
        const isStatic =
          typeof limit === 'number' &&
          typeof ttl === 'number' &&
          (blockDuration === undefined || typeof blockDuration === 'number');
        return {
          throttler,
          skip: Boolean(read<boolean>(THROTTLER_SKIP, throttler.name)),
          skipIf: throttler.skipIf ?? this.commonOptions.skipIf,
          limit,
          ttl,
          blockDuration,
          settings: isStatic ? { limit, ttl, blockDuration: blockDuration ?? ttl } : undefined,
          getTracker:
            read<ThrottlerGetTrackerFunction>(THROTTLER_TRACKER, throttler.name) ||
            throttler.getTracker ||
            this.commonOptions.getTracker!,
          generateKey:
            read<ThrottlerGenerateKeyFunction>(THROTTLER_KEY_GENERATOR, throttler.name) ||
            throttler.generateKey ||
            this.commonOptions.generateKey!,
        };
      });
      byController.set(controller, throttles);
    }
    return throttles;
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    return Promise.resolve((request as unknown as Request).principal?.subject ?? 'anonymous');
  }

  /** The principal's name is no secret and short: it is the key as it is, without hashing. */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw tooManyRequests('Too many requests for this token', detail.timeToBlockExpire);
  }

  /** Settings that depend on the request: functions called, numeric strings read, as the library does. */
  private async resolveSettings(context: ExecutionContext, route: RouteThrottle): Promise<ThrottleSettings> {
    const resolve = async (value: Resolvable<number>, option: string): Promise<number> => {
      const resolved: unknown = typeof value === 'function' ? await value(context) : value;
      const number = typeof resolved === 'string' && resolved.trim() !== '' ? Number(resolved) : resolved;
      if (typeof number !== 'number' || Number.isNaN(number)) {
        throw new Error(
          `Invalid "${option}" for the "${route.throttler.name}" throttler: expected a number, got ${JSON.stringify(resolved)}.`,
        );
      }
      return number;
    };
    const limit = await resolve(route.limit, 'limit');
    const ttl = await resolve(route.ttl, 'ttl');
    const blockDuration =
      route.blockDuration === undefined ? ttl : await resolve(route.blockDuration, 'blockDuration');
    return { limit, ttl, blockDuration };
  }
}

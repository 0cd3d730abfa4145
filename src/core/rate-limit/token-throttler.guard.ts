import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  type Resolvable,
  SkipThrottle,
  Throttle,
  type ThrottlerGenerateKeyFunction,
  type ThrottlerGetTrackerFunction,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request } from 'express';

import '../auth/principal.js';
import { RATE_LIMIT_FIELD, RATE_LIMIT_POLICY_FIELD, rateLimitFields } from './rate-limit-fields.js';
import { tooManyRequests } from './too-many-requests.js';

export const TOKEN_THROTTLER = 'token';

/**
 * Requests per principal (never the token itself), so every address a client uses shares its budget;
 * answered with the IETF RateLimit fields rather than the library's
 * `X-RateLimit-*`, so that one vocabulary covers this limit and the failed-authentication lockout.
 *
 * `canActivate` is the library's, but for when a route's settings are read: what its `@Throttle()`
 * and `@SkipThrottle()` say is read once per handler rather than six lookups on every request, and
 * a setting is awaited only when it is a function of the request.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  /** Each handler's throttlers, by controller (a handler may be inherited by several). */
  private readonly routes = new WeakMap<object, WeakMap<object, readonly RouteThrottler[]>>();
  /** Where the decorators record each throttler's settings; undefined when that cannot be learnt. */
  private settingKeys?: ReadonlyMap<string, SettingKeys>;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storageService: ThrottlerStorage,
  ) {
    super(options, storageService, new Reflector());
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const keys = this.throttlers.map(
      (throttler) => [throttler.name!, settingKeysOf(throttler.name!)] as const,
    );
    this.settingKeys = keys.every(([, found]) => found !== undefined)
      ? new Map(keys as Array<[string, SettingKeys]>)
      : undefined;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.settingKeys === undefined) {
      return super.canActivate(context);
    }
    if (isUncounted(context)) {
      return true;
    }
    let allowed = true;
    for (const route of this.routeThrottlers(context, this.settingKeys)) {
      const { throttler } = route;
      const skipIf = throttler.skipIf || this.commonOptions.skipIf;
      if (route.skip || skipIf?.(context)) {
        continue;
      }
      const { limit, ttl, blockDuration } = route.fixed ?? (await limitsFor(context, route));
      allowed =
        (await this.handleRequest({
          context,
          limit,
          ttl,
          throttler,
          blockDuration,
          getTracker: route.getTracker,
          generateKey: route.generateKey,
        })) && allowed;
    }
    return allowed;
  }

  /** Public routes let every request through unauthenticated: nobody to count it for. */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(isUncounted(context));
  }

  /** As in HTTP, without switchToHttp(). */
  protected override getRequestResponse(context: ExecutionContext): {
    req: Record<string, unknown>;
    res: Record<string, unknown>;
  } {
    return { req: context.getArgByIndex(0), res: context.getArgByIndex(1) };
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    return Promise.resolve((request as unknown as Request).principal?.subject ?? 'anonymous');
  }

  /** The principal's name is no secret and short: it is the key as it is, without hashing. */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context);
    const userAgent = (req as unknown as Request).headers['user-agent'];
    const ignoreUserAgents = throttler.ignoreUserAgents ?? this.commonOptions.ignoreUserAgents;
    if (userAgent !== undefined && ignoreUserAgents?.some((pattern) => pattern.test(userAgent))) {
      return true;
    }
    const name = throttler.name ?? TOKEN_THROTTLER;
    const tracked = getTracker(req, context);
    const key = generateKey(context, typeof tracked === 'string' ? tracked : await tracked, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    const fields =
      (throttler.setHeaders ?? this.commonOptions.setHeaders) === false
        ? undefined
        : rateLimitFields(name, limit, ttl, record);
    if (record.isBlocked) {
      throw tooManyRequests('Too many requests for this token', record.timeToBlockExpire, fields);
    }
    if (fields) {
      this.setResponseHeader(res, RATE_LIMIT_POLICY_FIELD, fields[RATE_LIMIT_POLICY_FIELD]);
      this.setResponseHeader(res, RATE_LIMIT_FIELD, fields[RATE_LIMIT_FIELD]);
    }
    return true;
  }

  /** What each of the throttlers is on this route: read from its decorators once, then remembered. */
  private routeThrottlers(
    context: ExecutionContext,
    settingKeys: ReadonlyMap<string, SettingKeys>,
  ): readonly RouteThrottler[] {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = this.routes.get(handler);
    let routes = byController?.get(controller);
    if (routes) {
      return routes;
    }
    const targets = [handler, controller];
    routes = this.throttlers.map((throttler) => {
      const keys = settingKeys.get(throttler.name!)!;
      const read = <T>(key: string): T | undefined =>
        this.reflector.getAllAndOverride<T | undefined>(key, targets);
      const route: Omit<RouteThrottler, 'fixed'> = {
        throttler,
        skip: read<boolean>(keys.skip) === true,
        limit: read<Resolvable<number>>(keys.limit) ?? throttler.limit,
        ttl: read<Resolvable<number>>(keys.ttl) ?? throttler.ttl,
        blockDuration: read<Resolvable<number>>(keys.blockDuration) ?? throttler.blockDuration,
        getTracker:
          read<ThrottlerGetTrackerFunction>(keys.getTracker) ||
          throttler.getTracker ||
          this.commonOptions.getTracker!,
        generateKey:
          read<ThrottlerGenerateKeyFunction>(keys.generateKey) ||
          throttler.generateKey ||
          this.commonOptions.generateKey!,
      };
      // Settings that are no function of the request are read as numbers once, here.
      const settings = [route.limit, route.ttl, route.blockDuration];
      return settings.some((setting) => typeof setting === 'function')
        ? route
        : { ...route, fixed: fixedLimits(route) };
    });
    if (!byController) {
      byController = new WeakMap();
      this.routes.set(handler, byController);
    }
    byController.set(controller, routes);
    return routes;
  }
}

/** Nobody to count the request for: a public route's requests are not authenticated. */
function isUncounted(context: ExecutionContext): boolean {
  // The request itself, without switchToHttp(), which makes three functions on every call (scripts/bundle.js).
  return context.getArgByIndex<Request>(0).principal === undefined;
}

interface Limits {
  readonly limit: number;
  readonly ttl: number;
  readonly blockDuration: number;
}

interface RouteThrottler {
  /** The limits when no setting is a function of the request. */
  readonly fixed?: Limits;
  readonly throttler: ThrottlerOptions;
  readonly skip: boolean;
  readonly limit: Resolvable<number>;
  readonly ttl: Resolvable<number>;
  readonly blockDuration: Resolvable<number> | undefined;
  readonly getTracker: ThrottlerGetTrackerFunction;
  readonly generateKey: ThrottlerGenerateKeyFunction;
}

/** The route's limits for this request, as the library resolves them: the block lasts the window unless set. */
async function limitsFor(context: ExecutionContext, route: RouteThrottler): Promise<Limits> {
  const name = route.throttler.name!;
  const resolve = (setting: Resolvable<number>) =>
    typeof setting === 'function' ? setting(context) : setting;
  const limit = toNumber(await resolve(route.limit), 'limit', name);
  const ttl = toNumber(await resolve(route.ttl), 'ttl', name);
  const blockDuration = toNumber(await resolve(route.blockDuration ?? ttl), 'blockDuration', name);
  return { limit, ttl, blockDuration };
}

function fixedLimits(route: Omit<RouteThrottler, 'fixed'>): Limits {
  const name = route.throttler.name!;
  const ttl = toNumber(route.ttl, 'ttl', name);
  return {
    limit: toNumber(route.limit, 'limit', name),
    ttl,
    blockDuration: toNumber(route.blockDuration ?? ttl, 'blockDuration', name),
  };
}

/** As the library reads a setting: a number, or a string of one. */
function toNumber(value: unknown, option: string, throttler: string): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) {
    throw new Error(
      `Invalid "${option}" for the "${throttler}" throttler: expected a number, got ${JSON.stringify(value)}.`,
    );
  }
  return number;
}

type SettingKeys = Readonly<
  Record<'skip' | 'limit' | 'ttl' | 'blockDuration' | 'getTracker' | 'generateKey', string>
>;

/**
 * The metadata keys under which `@Throttle()` and `@SkipThrottle()` record a throttler's settings, read
 * back from what they write on a probe class: the library keeps its names for them to itself. Undefined
 * if a decorator writes them otherwise, and the library's own `canActivate` is used then.
 */
function settingKeysOf(throttler: string): SettingKeys | undefined {
  const marks = { limit: 1, ttl: 2, blockDuration: 3, getTracker: 4, generateKey: 5 } as const;
  class Settings {}
  class Skipped {}
  Throttle({ [throttler]: marks as unknown as Parameters<typeof Throttle>[0][string] })(Settings);
  SkipThrottle({ [throttler]: true })(Skipped);
  const keyOf = (probe: object, value: unknown): string | undefined => {
    const keys = Reflect.getOwnMetadataKeys(probe).filter(
      (key) => Reflect.getOwnMetadata(key, probe) === value,
    );
    return keys.length === 1 && typeof keys[0] === 'string' ? keys[0] : undefined;
  };
  const keys = {
    skip: keyOf(Skipped, true),
    ...Object.fromEntries(Object.entries(marks).map(([setting, mark]) => [setting, keyOf(Settings, mark)])),
  };
  return Object.values(keys).every((key) => key !== undefined) ? (keys as SettingKeys) : undefined;
}

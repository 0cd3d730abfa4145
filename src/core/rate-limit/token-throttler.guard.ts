import { type ExecutionContext, Injectable } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request } from 'express';

import '../auth/principal.js';
import { CachedReflector } from './cached-reflector.js';
import { tooManyRequests } from './too-many-requests.js';

export const TOKEN_THROTTLER = 'token';

/**
 * Requests per token, counted after authentication: the tracker is the
 * authenticated principal (never the token itself), so every address a
 * client uses shares its budget. Public routes are not counted. Each route's
 * throttler settings are read from its metadata once (see `CachedReflector`).
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storageService: ThrottlerStorage,
  ) {
    super(options, storageService, new CachedReflector());
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(context.switchToHttp().getRequest<Request>().principal === undefined);
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
}

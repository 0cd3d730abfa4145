import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request } from 'express';

import '../auth/principal.js';
import { rateLimitFields } from './rate-limit-fields.js';
import { tooManyRequests } from './too-many-requests.js';

export const TOKEN_THROTTLER = 'token';

/**
 * Requests per principal (never the token itself), so every address a client uses shares its budget;
 * answered with the IETF RateLimit fields rather than the library's `X-RateLimit-*`, so that one
 * vocabulary covers this limit and the failed-authentication lockout.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storageService: ThrottlerStorage,
  ) {
    super(options, storageService, new Reflector());
  }

  /** Public routes let every request through unauthenticated: nobody to count it for. */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    // The request itself, without switchToHttp(), which makes three functions on every call (scripts/bundle.js).
    return Promise.resolve(context.getArgByIndex<Request>(0).principal === undefined);
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
    const key = generateKey(context, await getTracker(req, context), name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    const fields =
      (throttler.setHeaders ?? this.commonOptions.setHeaders) === false
        ? undefined
        : rateLimitFields(name, limit, ttl, record);
    if (record.isBlocked) {
      throw tooManyRequests('Too many requests for this token', record.timeToBlockExpire, fields);
    }
    for (const [field, value] of Object.entries(fields ?? {})) {
      this.setResponseHeader(res, field, value);
    }
    return true;
  }
}

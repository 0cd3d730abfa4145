import { Inject, Injectable } from '@nestjs/common';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { RateLimitStorage } from '../rate-limit/rate-limit.storage.js';
import { tooManyRequests } from '../rate-limit/too-many-requests.js';

const THROTTLER_NAME = 'auth-failures';

/**
 * Brute-force protection: a client address that fails authentication too
 * often in a window is refused with 429, before any token it sends is
 * checked, until the window has passed.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly limit: number;
  private readonly windowMs: number;

  constructor(
    private readonly storage: RateLimitStorage,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    ({ limit: this.limit, windowMs: this.windowMs } = config.failureLimit);
  }

  /**
   * Throws 429 while `address` is blocked: at once with counters in memory
   * (undefined when allowed), or as the promise's rejection with counters in Redis.
   */
  assertAllowed(address: string | undefined): Promise<void> | undefined {
    if (this.limit === 0) {
      return undefined;
    }
    const wait = this.storage.blockedFor(keyOf(address));
    if (typeof wait === 'number') {
      refuseWhileBlocked(wait);
      return undefined;
    }
    return wait.then(refuseWhileBlocked);
  }

  /** Counts a failed attempt; the one that reaches the limit is already refused with 429. */
  async recordFailure(address: string | undefined): Promise<void> {
    if (this.limit === 0) {
      return;
    }
    const { isBlocked, timeToBlockExpire } = await this.storage.increment(
      keyOf(address),
      this.windowMs,
      this.limit,
      this.windowMs,
      THROTTLER_NAME,
    );
    if (isBlocked) {
      throw tooManyRequests('Too many failed authentication attempts from this address', timeToBlockExpire);
    }
  }
}

function refuseWhileBlocked(wait: number): void {
  if (wait > 0) {
    throw tooManyRequests('Too many failed authentication attempts from this address', wait);
  }
}

function keyOf(address: string | undefined): string {
  return `${THROTTLER_NAME}:${address ?? 'unknown'}`;
}

import { Inject, Injectable } from '@nestjs/common';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { FixedWindowThrottlerStorage } from '../rate-limit/fixed-window.storage.js';
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
    private readonly storage: FixedWindowThrottlerStorage,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    ({ limit: this.limit, windowMs: this.windowMs } = config.failureLimit);
  }

  /** Throws 429 while `address` is blocked. */
  assertAllowed(address: string | undefined): void {
    if (this.limit === 0) {
      return;
    }
    const wait = this.storage.blockedFor(keyOf(address));
    if (wait > 0) {
      throw tooManyRequests('Too many failed authentication attempts from this address', wait);
    }
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

function keyOf(address: string | undefined): string {
  return `${THROTTLER_NAME}:${address ?? 'unknown'}`;
}

import { Inject, Injectable } from '@nestjs/common';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { blockedFields, rateLimitFields, type RateLimitFields } from '../rate-limit/rate-limit-fields.js';
import { RateLimitStorage } from '../rate-limit/rate-limit.storage.js';
import { tooManyRequests } from '../rate-limit/too-many-requests.js';

/** The limit's name, as its RateLimit fields give it. */
export const AUTH_FAILURES_POLICY = 'auth-failures';
const LOCKED_OUT = 'Too many failed authentication attempts from this address';

/** Brute-force protection: an address that fails too often is refused 429 before its tokens are checked; each refusal carries its RateLimit fields (policy `auth-failures`). */
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

  /** Throws 429 while blocked: at once with counters in memory, as the rejection with Redis. */
  assertAllowed(address: string | undefined): Promise<void> | undefined {
    if (this.limit === 0) {
      return undefined;
    }
    const wait = this.storage.blockedFor(keyOf(address));
    if (typeof wait === 'number') {
      this.refuseWhileBlocked(wait);
      return undefined;
    }
    return wait.then((seconds) => this.refuseWhileBlocked(seconds));
  }

  /**
   * Counts a failed attempt, and answers what is left of the address's budget
   * (undefined when there is no limit); the one that reaches the limit is
   * already refused with 429.
   */
  async recordFailure(address: string | undefined): Promise<RateLimitFields | undefined> {
    if (this.limit === 0) {
      return undefined;
    }
    const record = await this.storage.increment(
      keyOf(address),
      this.windowMs,
      this.limit,
      this.windowMs,
      AUTH_FAILURES_POLICY,
    );
    const fields = rateLimitFields(AUTH_FAILURES_POLICY, this.limit, this.windowMs, record);
    if (record.isBlocked) {
      throw tooManyRequests(LOCKED_OUT, record.timeToBlockExpire, fields);
    }
    return fields;
  }

  private refuseWhileBlocked(seconds: number): void {
    if (seconds > 0) {
      throw tooManyRequests(
        LOCKED_OUT,
        seconds,
        blockedFields(AUTH_FAILURES_POLICY, this.limit, this.windowMs, seconds),
      );
    }
  }
}

function keyOf(address: string | undefined): string {
  return `${AUTH_FAILURES_POLICY}:${address ?? 'unknown'}`;
}

import type { ThrottlerStorage } from '@nestjs/throttler';

export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Where the rate limits count: this process's memory
 * (`FixedWindowThrottlerStorage`), or Redis, shared by every instance
 * (`RedisThrottlerStorage`). The per-token throttler and the
 * failed-authentication lockout use the same one.
 */
export abstract class RateLimitStorage implements ThrottlerStorage {
  /** The key already names the throttler (see the guard's `generateKey`). */
  abstract increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName?: string,
  ): Promise<ThrottlerStorageRecord>;

  /**
   * Seconds until `key` may be used again; 0 when it is not blocked. Counts
   * nothing. Counters in memory answer at once, so that checking costs the
   * request no promise; counters elsewhere answer with one.
   */
  abstract blockedFor(key: string): number | Promise<number>;
}

/** Whole seconds, rounded up, never 0: what `Retry-After` and the throttler's record carry. */
export function secondsFrom(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}

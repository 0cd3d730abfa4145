import type { ThrottlerStorage } from '@nestjs/throttler';

export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Where the rate limits count, in memory or Redis: the per-token throttler and the lockout share it. */
export abstract class RateLimitStorage implements ThrottlerStorage {
  /** The key already names the throttler (see the guard's `generateKey`). */
  abstract increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName?: string,
  ): Promise<ThrottlerStorageRecord>;

  /** Seconds until `key` may be used again, counting nothing; in memory at once: it costs no promise. */
  abstract blockedFor(key: string): number | Promise<number>;
}

/** Whole seconds, rounded up, never 0: what `Retry-After` and the throttler's record carry. */
export function secondsFrom(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}

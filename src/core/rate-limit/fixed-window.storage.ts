import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  endsAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters for `@nestjs/throttler`, in fixed windows: O(1) per request.
 *
 * The library's default storage keeps one timestamp per hit and filters the
 * list on every request, which costs as much as the limit is high: fine for
 * ten requests a minute, not for a per-token limit of thousands a second.
 * A fixed window may let through up to twice the limit across a window's
 * edge, which is acceptable for limits meant to stop runaway clients.
 *
 * Counters live in this process: with several instances each counts its own
 * share (see the README). A shared store (for example Redis) can take this
 * class's place behind the same `ThrottlerStorage` interface.
 */
@Injectable()
export class FixedWindowThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  /** The key already names the throttler (see the guard's `generateKey`). */
  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || (window.endsAt <= now && window.blockedUntil <= now)) {
      window = { hits: 0, endsAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
    } else if (window.endsAt <= now) {
      window.hits = 0;
      window.endsAt = now + ttl;
    }
    if (window.blockedUntil <= now) {
      window.hits++;
      if (window.hits > limit) {
        window.blockedUntil = now + blockDuration;
      }
    }
    const isBlocked = window.blockedUntil > now;
    return Promise.resolve({
      totalHits: window.hits,
      timeToExpire: seconds(window.endsAt - now),
      isBlocked,
      timeToBlockExpire: isBlocked ? seconds(window.blockedUntil - now) : 0,
    });
  }

  /** Seconds until `key` may be used again; 0 when it is not blocked. Counts nothing. */
  blockedFor(key: string): number {
    const window = this.windows.get(key);
    const now = Date.now();
    return window && window.blockedUntil > now ? seconds(window.blockedUntil - now) : 0;
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  private sweep(now = Date.now()): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now && window.blockedUntil <= now) {
        this.windows.delete(key);
      }
    }
  }
}

function seconds(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}

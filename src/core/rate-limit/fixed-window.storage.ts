import type { OnModuleDestroy } from '@nestjs/common';

import { RateLimitStorage, secondsFrom, type ThrottlerStorageRecord } from './rate-limit.storage.js';

interface Window {
  hits: number;
  endsAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters in fixed windows, O(1) per request, where the library's default storage filters one timestamp
 * per hit on every request. A window may let twice the limit through across its edge: acceptable for
 * limits meant to stop runaway clients.
 */
export class FixedWindowThrottlerStorage extends RateLimitStorage implements OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

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
      timeToExpire: secondsFrom(window.endsAt - now),
      isBlocked,
      timeToBlockExpire: isBlocked ? secondsFrom(window.blockedUntil - now) : 0,
    });
  }

  blockedFor(key: string): number {
    const window = this.windows.get(key);
    const now = Date.now();
    return window && window.blockedUntil > now ? secondsFrom(window.blockedUntil - now) : 0;
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

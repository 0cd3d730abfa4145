import { Module } from '@nestjs/common';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { Metrics } from '../metrics/metrics.js';
import { FixedWindowThrottlerStorage } from './fixed-window.storage.js';
import { RateLimitStorage } from './rate-limit.storage.js';

/**
 * One set of counters, shared by the throttler module and the authentication
 * failure limiter: in Redis when `REDIS_URL` is set, else in memory.
 *
 * The Redis client is loaded only when it is configured: without `REDIS_URL`,
 * ioredis is never read, and a start neither loads nor holds it
 * (docs/performance.md#start-up).
 */
@Module({
  providers: [
    {
      provide: RateLimitStorage,
      inject: [authConfig.KEY, Metrics],
      useFactory: async (auth: AuthConfig, metrics: Metrics): Promise<RateLimitStorage> => {
        if (!auth.redis) {
          return new FixedWindowThrottlerStorage();
        }
        const { RedisThrottlerStorage } = await import('./redis.storage.js');
        return RedisThrottlerStorage.connect(auth.redis, metrics.registry);
      },
    },
  ],
  exports: [RateLimitStorage],
})
export class RateLimitStorageModule {}

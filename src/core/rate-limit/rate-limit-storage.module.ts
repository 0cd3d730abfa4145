import { Module } from '@nestjs/common';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { Metrics } from '../metrics/metrics.js';
import { FixedWindowThrottlerStorage } from './fixed-window.storage.js';
import { RateLimitStorage } from './rate-limit.storage.js';
import { RedisThrottlerStorage } from './redis.storage.js';

/**
 * One set of counters, shared by the throttler module and the authentication
 * failure limiter: in Redis when `REDIS_URL` is set, else in memory.
 */
@Module({
  providers: [
    {
      provide: RateLimitStorage,
      inject: [authConfig.KEY, Metrics],
      useFactory: (auth: AuthConfig, metrics: Metrics): RateLimitStorage | Promise<RateLimitStorage> =>
        auth.redis
          ? RedisThrottlerStorage.connect(auth.redis, metrics.registry)
          : new FixedWindowThrottlerStorage(),
    },
  ],
  exports: [RateLimitStorage],
})
export class RateLimitStorageModule {}

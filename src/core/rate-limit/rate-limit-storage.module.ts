import { Module } from '@nestjs/common';

import { FixedWindowThrottlerStorage } from './fixed-window.storage.js';

/** One set of counters, shared by the throttler module and the authentication failure limiter. */
@Module({
  providers: [FixedWindowThrottlerStorage],
  exports: [FixedWindowThrottlerStorage],
})
export class RateLimitStorageModule {}

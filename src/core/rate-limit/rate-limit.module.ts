import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';

import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { RateLimitStorageModule } from './rate-limit-storage.module.js';
import { RateLimitStorage } from './rate-limit.storage.js';
import { TOKEN_THROTTLER, TokenThrottlerGuard } from './token-throttler.guard.js';

@Module({
  imports: [
    RateLimitStorageModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [authConfig.KEY, RateLimitStorage],
      useFactory: (auth: AuthConfig, storage: RateLimitStorage) => ({
        storage,
        throttlers: [
          {
            name: TOKEN_THROTTLER,
            limit: auth.tokenLimit.limit,
            ttl: auth.tokenLimit.windowMs,
            skipIf: () => auth.tokenLimit.limit === 0,
          },
        ],
      }),
    }),
  ],
  providers: [TokenThrottlerGuard],
  exports: [TokenThrottlerGuard],
})
export class RateLimitModule {}

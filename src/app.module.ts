import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';

import { AuthModule } from './auth/auth.module.js';
import { BearerAuthGuard } from './auth/bearer-auth.guard.js';
import { appConfig } from './config/app.config.js';
import { authConfig } from './config/auth.config.js';
import { databaseConfig } from './config/database.config.js';
import { httpConfig } from './config/http.config.js';
import { webhookConfig } from './config/webhook.config.js';
import { DatabaseModule } from './database/database.module.js';
import { HttpErrorFilter } from './errors/http-error.filter.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PlantsModule } from './plants/plants.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { TokenThrottlerGuard } from './rate-limit/token-throttler.guard.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { StrictValidationPipe } from './validation/strict-validation.pipe.js';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: [appConfig, databaseConfig, authConfig, httpConfig, webhookConfig],
      // Tests say everything they need; a developer's .env must not leak into them.
      ignoreEnvFile: process.env.NODE_ENV === 'test',
    }),
    // The request's context (its id, its principal) for whatever runs on its behalf; the HTTP edge opens it.
    ClsModule.forRoot({ global: true }),
    LifecycleModule,
    DatabaseModule,
    MetricsModule,
    AuthModule,
    RateLimitModule,
    HealthModule,
    WebhooksModule,
    PlantsModule,
  ],
  providers: [
    // Guards run in this order: who is calling, then how often.
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
    { provide: APP_GUARD, useExisting: TokenThrottlerGuard },
    { provide: APP_FILTER, useClass: HttpErrorFilter },
    { provide: APP_PIPE, useClass: StrictValidationPipe },
  ],
})
export class AppModule {}

import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';

import { AuditModule } from './core/audit/audit.module.js';
import { AuthModule } from './core/auth/auth.module.js';
import { BearerAuthGuard } from './core/auth/bearer-auth.guard.js';
import { appConfig } from './core/config/app.config.js';
import { authConfig } from './core/config/auth.config.js';
import { databaseConfig } from './core/config/database.config.js';
import { httpConfig } from './core/config/http.config.js';
import { retentionConfig } from './core/config/retention.config.js';
import { webhookConfig } from './core/config/webhook.config.js';
import { DatabaseModule } from './core/database/database.module.js';
import { HttpErrorFilter } from './core/errors/http-error.filter.js';
import { HealthModule } from './core/health/health.module.js';
import { HttpModule } from './core/http/http.module.js';
import { RequestContextModule } from './core/logging/request-context.module.js';
import { LifecycleModule } from './core/lifecycle/lifecycle.module.js';
import { ListsModule } from './core/lists/lists.module.js';
import { MetricsModule } from './core/metrics/metrics.module.js';
import { PlantsModule } from './plants/plants.module.js';
import { RateLimitModule } from './core/rate-limit/rate-limit.module.js';
import { RetentionModule } from './core/retention/retention.module.js';
import { TokenThrottlerGuard } from './core/rate-limit/token-throttler.guard.js';
import { HandlerSpanInterceptor } from './core/tracing/handler-span.interceptor.js';
import { tracingSettings } from './core/tracing/tracing-settings.js';
import { WebhooksModule } from './core/webhooks/webhooks.module.js';
import { ApiValidationPipe } from './core/validation/validation.pipe.js';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: [appConfig, databaseConfig, authConfig, httpConfig, webhookConfig, retentionConfig],
      // Tests say everything they need; a developer's .env must not leak into them.
      ignoreEnvFile: process.env.NODE_ENV === 'test',
    }),
    RequestContextModule,
    LifecycleModule,
    HttpModule,
    DatabaseModule,
    ListsModule,
    MetricsModule,
    AuthModule,
    RateLimitModule,
    HealthModule,
    WebhooksModule,
    AuditModule,
    RetentionModule,
    PlantsModule,
  ],
  providers: [
    // Guards run in this order: who is calling, then how often.
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
    { provide: APP_GUARD, useExisting: TokenThrottlerGuard },
    { provide: APP_FILTER, useClass: HttpErrorFilter },
    { provide: APP_PIPE, useClass: ApiValidationPipe },
    // A span per handler, when tracing is on (it is decided once, as the process starts).
    ...(tracingSettings(process.env).enabled
      ? [{ provide: APP_INTERCEPTOR, useClass: HandlerSpanInterceptor }]
      : []),
  ],
})
export class AppModule {
  /** The application with more modules beside its own: a resource that exists only in the tests, say. */
  static with(...modules: Array<Type | DynamicModule>): DynamicModule {
    return { module: AppModule, imports: modules };
  }
}

import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

import { AppModule } from './app.module.js';
import { httpConfig, type HttpConfig } from './config/http.config.js';
import { configureHttpServer } from './http/http-server.js';
import { jsonBodyParser } from './http/json-body.parser.js';
import { securityHeaders } from './http/security-headers.js';
import { closeConnectionsWhileDraining } from './lifecycle/graceful-shutdown.js';
import { ShutdownState } from './lifecycle/shutdown-state.js';
import { assignRequestId } from './http/request-id.js';
import { PinoNestLogger } from './logging/pino-nest-logger.js';
import { requestLog } from './logging/request-log.js';
import { getRootLogger } from './logging/root-logger.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { Metrics } from './metrics/metrics.js';
import { setUpOpenApi } from './openapi/openapi.document.js';

/**
 * The application as it runs in production and in the e2e tests: what cannot
 * be a provider is configured here, once.
 */
export async function createApp(): Promise<NestExpressApplication> {
  const rootLogger = getRootLogger();
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    logger: new PinoNestLogger(rootLogger),
    // The service reads JSON bodies with its own parser, and nothing else.
    bodyParser: false,
    // Fail with an error, not `process.abort()`, when a provider cannot start.
    abortOnError: false,
  });

  const http = app.get<HttpConfig>(httpConfig.KEY);
  configureHttpServer(app.getHttpServer(), http);
  app.set('trust proxy', http.trustProxy);
  app.set('etag', false);
  if (http.corsOrigins.length > 0) {
    app.enableCors({
      origin: http.corsOrigins,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Link', 'Allow'],
      maxAge: 600,
    });
  }

  // Per-request work lives here, at the HTTP layer, in this order: a Nest
  // interceptor would cost far more for the same job.
  app.use(securityHeaders());
  app.use(assignRequestId);
  app.use(requestLog(rootLogger));
  if (http.metricsEnabled) {
    app.use(httpMetrics(app.get(Metrics)));
  }
  app.use(closeConnectionsWhileDraining(app.get(ShutdownState)));
  app.use(jsonBodyParser());

  setUpOpenApi(app);
  return app;
}

import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';

import { AppModule } from './app.module.js';
import { jsonBodyParser } from './http/json-body.parser.js';
import { closeConnectionsWhileDraining } from './lifecycle/graceful-shutdown.js';
import { ShutdownState } from './lifecycle/shutdown-state.js';
import { assignRequestId } from './http/request-id.js';
import { PinoNestLogger } from './logging/pino-nest-logger.js';
import { requestLog } from './logging/request-log.js';
import { ROOT_LOGGER } from './logging/root-logger.js';
import { setUpOpenApi } from './openapi/openapi.document.js';

/**
 * The application as it runs in production and in the e2e tests: what cannot
 * be a provider is configured here, once.
 */
export async function createApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    // The service reads JSON bodies with its own parser, and nothing else.
    bodyParser: false,
    // Fail with an error, not `process.abort()`, when a provider cannot start.
    abortOnError: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(PinoNestLogger));

  // Per-request work lives here, at the HTTP layer, in this order: a Nest
  // interceptor would cost far more for the same job.
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(assignRequestId);
  app.use(requestLog(app.get<Logger>(ROOT_LOGGER)));
  app.use(closeConnectionsWhileDraining(app.get(ShutdownState)));
  app.use(jsonBodyParser());

  setUpOpenApi(app);
  return app;
}

import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

import { AppModule } from './app.module.js';
import { jsonBodyParser } from './http/json-body.parser.js';
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
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(jsonBodyParser());
  setUpOpenApi(app);
  return app;
}

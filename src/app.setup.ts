import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import type { Logger } from 'pino';

import { AppModule } from './app.module.js';
import { httpConfig, type HttpConfig } from './core/config/http.config.js';
import { httpEdge } from './core/http/http-edge.js';
import { configureHttpServer } from './core/http/http-server.js';
import { HttpListeners } from './core/http/http-listeners.js';
import { bigintAsNumber } from './core/http/json.js';
import { AllowedMethods } from './core/http/allowed-methods.js';
import { REQUIRE_IF_MATCH_SETTING } from './core/http/conditional-requests.js';
import { jsonBodyParser } from './core/http/json-body.parser.js';
import { JsonExpressAdapter } from './core/http/json-express.adapter.js';
import { LoadShedder } from './core/lifecycle/load-shedder.js';
import { ShutdownState } from './core/lifecycle/shutdown-state.js';
import { PinoNestLogger } from './core/logging/pino-nest-logger.js';
import { Metrics } from './core/metrics/metrics.js';
import { setUpOpenApi } from './core/openapi/openapi.document.js';
import { tracingSettings } from './core/tracing/tracing-settings.js';

export interface CreateAppOptions {
  /** The process's logger (see `createRootLogger`): every line of the application goes through it. */
  readonly logger: Logger;
  readonly imports?: ReadonlyArray<Type | DynamicModule>;
}

/** Shared by production and the tests: what cannot be a provider, configured once. */
export async function createApp({
  logger: rootLogger,
  imports = [],
}: CreateAppOptions): Promise<NestExpressApplication> {
  const root = imports.length > 0 ? AppModule.with(...imports) : AppModule;
  const server = express();
  // `/PLANTS` is not `/plants`: what reads a path besides the router (the load shedder's exemptions,
  // the docs' security policy, 404 or 405) agrees with it. Set before the adapter creates the router.
  server.set('case sensitive routing', true);
  const app = await NestFactory.create<NestExpressApplication>(root, new JsonExpressAdapter(server), {
    logger: new PinoNestLogger(rootLogger),
    // The service reads JSON bodies with its own parser, and nothing else.
    bodyParser: false,
    // Fail with an error, not `process.abort()`, when a provider cannot start.
    abortOnError: false,
  });

  const http = app.get<HttpConfig>(httpConfig.KEY);
  configureHttpServer(app.getHttpServer(), http);
  app.set('trust proxy', http.trustProxy);
  // res.json() writes an id past 2^53 with every digit; a plain answer a handler returns is written
  // without it (JsonExpressAdapter), unless it holds a bigint.
  app.set('json replacer', bigintAsNumber);
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.set(REQUIRE_IF_MATCH_SETTING, http.requireIfMatch);

  app.use(
    httpEdge({
      logger: rootLogger,
      metrics: http.metricsEnabled ? app.get(Metrics) : undefined,
      shutdown: app.get(ShutdownState),
      shedder: app.get(LoadShedder),
      tracing: tracingSettings(process.env).enabled,
    }),
  );
  if (http.corsOrigins.length > 0) {
    app.enableCors({
      origin: http.corsOrigins,
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'X-Request-Id',
        'If-Match',
        'If-None-Match',
        'If-Modified-Since',
        'If-Unmodified-Since',
        'Prefer',
      ],
      exposedHeaders: [
        'X-Request-Id',
        'Retry-After',
        'WWW-Authenticate',
        'Link',
        'Allow',
        'ETag',
        'Last-Modified',
        'RateLimit',
        'RateLimit-Policy',
        'Content-Range',
        'Preference-Applied',
      ],
      maxAge: 600,
    });
  }
  app.use(jsonBodyParser(app.get(AllowedMethods)));

  if (http.docsEnabled) {
    setUpOpenApi(app);
  }
  return app;
}

/** `app.listen()`, on `HTTP_LISTENERS` sockets of the port (see `PortListeners`). */
export async function listen(app: NestExpressApplication, port: number, host?: string): Promise<void> {
  await app.init();
  await app.get(HttpListeners).listen(port, host);
}

/**
 * The framework's ceiling: `POST /plants` on NestJS and Express as an
 * ordinary Nest application answers it, with no database at all. helmet's
 * headers and a request id set by a middleware, Nest's own JSON body parser,
 * the ceiling's bearer check (constant time) as a global guard, `@Body()`,
 * and the plant's name and tag back with a 200. No logs, metrics, rate limits
 * or validation rules: what the stack the service is built on costs before
 * the service does anything. It listens on as many sockets as the service
 * (HTTP_LISTENERS).
 *
 *   PORT=4002 AUTH_TOKENS=… node bench/framework-server.js
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';

import { Body, Controller, HttpCode, Injectable, Module, Post, UnauthorizedException } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import helmet from 'helmet';

import { authorized } from './bearer.js';
import { listenAsTheService } from './listen.js';

// Plain JavaScript: the decorators are applied as TypeScript would apply them.
class BearerGuard {
  canActivate(context) {
    if (!authorized(context.switchToHttp().getRequest().headers.authorization)) {
      throw new UnauthorizedException('The bearer token is invalid or expired');
    }
    return true;
  }
}
Injectable()(BearerGuard);

class PlantsController {
  create(plant) {
    return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
  }
}
const create = Object.getOwnPropertyDescriptor(PlantsController.prototype, 'create');
Post()(PlantsController.prototype, 'create', create);
HttpCode(200)(PlantsController.prototype, 'create', create);
Body()(PlantsController.prototype, 'create', 0);
Controller('plants')(PlantsController);

class AppModule {}
Module({ controllers: [PlantsController], providers: [{ provide: APP_GUARD, useClass: BearerGuard }] })(
  AppModule,
);

const app = await NestFactory.create(AppModule, new ExpressAdapter(), { logger: ['error'] });
app.set('x-powered-by', false);
app.use(
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
  }),
);
app.use((_request, response, next) => {
  response.setHeader('X-Request-Id', randomUUID());
  next();
});
await app.init();

const close = listenAsTheService(app.getHttpServer(), {
  port: Number(process.env.PORT ?? 4002),
  host: process.env.HOST ?? '127.0.0.1',
});

process.once('SIGTERM', () => {
  close(() => process.exit(0));
  app.getHttpServer().closeIdleConnections();
});

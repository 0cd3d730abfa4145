import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** The matched route's pattern, so that lines group by operation rather than by URL. */
export function routeOf(request: Request): string | undefined {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : undefined;
}

/**
 * One line per request, when its response is done: method, route, status,
 * duration and request id. Deliberately nothing else: no headers (they carry
 * the bearer token), no bodies, no query strings.
 */
export function requestLog(logger: Logger): RequestHandler {
  const log = logger.child({ context: 'HTTP' });
  return function logRequest(request: Request, response: Response, next: NextFunction): void {
    const started = performance.now();
    response.once('close', () => {
      if (!log.isLevelEnabled('info')) {
        return;
      }
      const status = response.writableFinished ? response.statusCode : 0;
      log.info(
        {
          reqId: request.id,
          method: request.method,
          route: routeOf(request) ?? null,
          status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        },
        status === 0 ? 'request aborted' : 'request completed',
      );
    });
    next();
  };
}

import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { routeOf } from '../logging/request-log.js';
import type { Metrics } from './metrics.js';

/**
 * Counts and times every request at the HTTP layer, labelled by the matched
 * route's pattern (never the raw URL, whose ids would make labels unbounded).
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return function measureRequest(request: Request, response: Response, next: NextFunction): void {
    const stopTimer = process.hrtime.bigint();
    response.once('finish', () => {
      const labels = {
        method: request.method,
        route: routeOf(request) ?? 'unmatched',
        status: String(response.statusCode),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - stopTimer) / 1e9);
    });
    next();
  };
}

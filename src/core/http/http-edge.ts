import { type Span, trace } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';

import '../auth/principal.js';
import { OverloadedError } from '../errors/domain-error.js';
import type { LoadShedder } from '../lifecycle/load-shedder.js';
import type { ShutdownState } from '../lifecycle/shutdown-state.js';
import { runInRequestContext } from '../logging/request-context.js';
import type { Metrics } from '../metrics/metrics.js';
import { assignRequestId, REQUEST_ID_HEADER } from './request-id.js';

export interface HttpEdgeOptions {
  readonly logger: Logger;
  /** Absent when METRICS_ENABLED=false. */
  readonly metrics?: Metrics;
  readonly shutdown: ShutdownState;
  readonly shedder: LoadShedder;
  /** Whether tracing is on (`tracingSettings`): off, a request does no tracing work at all. */
  readonly tracing: boolean;
}

/**
 * What every request needs, in one middleware since each Express layer or Nest interceptor costs on
 * every request (docs/performance.md#the-http-edge). A handler's own `@Header()` still beats helmet's,
 * being set later. The log line never holds headers, bodies or query strings.
 */
export function httpEdge({ logger, metrics, shutdown, shedder, tracing }: HttpEdgeOptions): RequestHandler {
  const apiHeaders = helmet(API_HEADERS);
  const docsHeaders = helmet({ contentSecurityPolicy: DOCS_CONTENT_SECURITY_POLICY, xPoweredBy: false });
  const log = logger.child({ context: 'HTTP' });
  const instruments = metrics ? new RequestInstruments(metrics) : undefined;

  return function handleEdge(request: Request, response: Response, next: NextFunction): void {
    const started = performance.now();
    const id = assignRequestId(request);
    response.setHeader(REQUEST_ID_HEADER, id);
    // helmet's middleware sets its headers and calls on at once.
    (request.path.startsWith('/docs') ? docsHeaders : apiHeaders)(request, response, noop);
    if (shutdown.isShuttingDown) {
      response.setHeader('Connection', 'close');
    }
    const span = tracing ? trace.getActiveSpan() : undefined;
    if (span?.isRecording()) {
      // Before the HTTP instrumentation's own listener, which ends the span.
      response.prependOnceListener('close', () => nameServerSpan(span, request));
    }
    response.once('close', () => {
      const durationMs = performance.now() - started;
      const route = routeOf(request);
      const status = response.writableFinished ? response.statusCode : 0;
      instruments?.record(request.method, route ?? 'unmatched', status, durationMs);
      if (log.isLevelEnabled('info')) {
        log.info(
          {
            reqId: request.id,
            principal: request.principal?.subject,
            method: request.method,
            route: route ?? null,
            status,
            durationMs: Math.round(durationMs * 100) / 100,
          },
          status === 0 ? 'request aborted' : 'request completed',
        );
      }
    });
    if (!ALWAYS_SERVED.test(request.path) && shedder.shouldShed()) {
      // Through the exception filter, as every failure: the Error body, Retry-After.
      next(new OverloadedError());
      return;
    }
    runInRequestContext(id, next);
  };
}

/** Served however loaded the process is: an overloaded instance is not a dead one. */
const ALWAYS_SERVED = /^\/(health|metrics)(\/|$)/;

/** The server span, named by its route (`POST /plants`) as OpenTelemetry's conventions ask, when one matched. */
function nameServerSpan(span: Span, request: Request): void {
  const route = routeOf(request);
  if (route !== undefined) {
    span.setAttribute('http.route', route).updateName(`${request.method} ${route}`);
  }
}

/** The matched route's pattern, so that lines and metrics group by operation rather than by URL. */
export function routeOf(request: Request): string | undefined {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : undefined;
}

type HelmetOptions = Exclude<Parameters<typeof helmet>[0], undefined>;
type ContentSecurityPolicy = HelmetOptions['contentSecurityPolicy'];

/** A JSON answer loads nothing and is framed by nobody; the headers only HTML needs are left to the docs pages. */
const API_HEADERS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  // Express sends no X-Powered-By (`app.set('x-powered-by', false)`): nothing for helmet to remove.
  xPoweredBy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/**
 * Helmet's default policy suits the Swagger UI but for `upgrade-insecure-requests`, which would turn
 * its calls into https ones when the service is reached over plain http.
 */
const DOCS_CONTENT_SECURITY_POLICY: ContentSecurityPolicy = { directives: { upgradeInsecureRequests: null } };

function noop(): void {}

/** Counter and histogram children per label set: no label hashing on the hot path. */
class RequestInstruments {
  private readonly children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();

  constructor(private readonly metrics: Metrics) {}

  record(method: string, route: string, status: number, durationMs: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      const labels = [method, route, String(status)] as const;
      const counter = this.metrics.httpRequests.labels(...labels);
      const histogram = this.metrics.httpDuration.labels(...labels);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      this.children.set(key, child);
    }
    child.count();
    child.observe(durationMs / 1000);
  }
}

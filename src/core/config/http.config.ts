import { registerAs, type ConfigType } from '@nestjs/config';
import { IsOptional, IsString, IsUrl } from 'class-validator';

import { AppEnvironment } from './app.config.js';
import {
  BooleanVariable,
  Environment,
  IntegerVariable,
  isLoopbackUrl,
  parseListEnv,
  readEnvironment,
} from './environment.js';

/** The HTTP edge: timeouts, proxies, browsers, metrics. */
@Environment()
export class HttpEnvironment {
  /** A client gets this long to send its request headers (slow-header attacks), and this long for the whole request. */
  @IntegerVariable(100, 600_000)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  @IntegerVariable(100, 600_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /** An idle keep-alive connection is closed after this long; keep it above a load balancer's idle timeout. */
  @IntegerVariable(100, 600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;

  /**
   * Sockets listening on PORT, each accepting one connection per turn of the
   * event loop, so that a crowd of new connections is not left waiting to be
   * accepted (`core/http/port-listeners.ts`). More than 1 needs SO_REUSEPORT;
   * unset: 64 on Linux, which has it, 1 elsewhere.
   */
  @IntegerVariable(1, 256)
  HTTP_LISTENERS?: number;

  /**
   * While the event loop runs more than this late, requests are answered 503
   * with Retry-After at once, rather than served later still (`LoadShedder`);
   * 0: never.
   */
  @IntegerVariable(0, 60_000)
  HTTP_SHED_LAG_MS = 500;

  /** Express's `trust proxy`: whose X-Forwarded-For names the client. Unset: none, the peer is the client. */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** Origins allowed to call the API from a browser; unset: CORS is off. */
  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @BooleanVariable()
  METRICS_ENABLED = true;

  /** Changes (PATCH, DELETE) of versioned records without If-Match answer 428 instead of going ahead. */
  @BooleanVariable()
  REQUIRE_IF_MATCH = false;

  /** Serve `/metrics` on this port only, away from the API's; unset: see METRICS_ON_API_PORT. */
  @IntegerVariable(0, 65535)
  METRICS_PORT?: number;

  /**
   * Without METRICS_PORT, serve `/metrics` on the API's port. Unset: yes
   * outside production; no in production, where whatever routes the API's
   * port (an ingress, a proxy) would expose them, so the operator must ask.
   */
  @BooleanVariable()
  METRICS_ON_API_PORT?: boolean;

  /** Serve the Swagger UI and the OpenAPI document (`/docs`, `/openapi.json`, `/openapi.yaml`). */
  @BooleanVariable()
  DOCS_ENABLED = true;

  /**
   * Where clients reach the service (behind its proxy, say): the OpenAPI
   * document's `servers`, which generated clients take as their base URL.
   * The default is where a development instance listens.
   */
  @IsOptional()
  @IsUrl(
    { require_tld: false, protocols: ['https', 'http'], require_protocol: true },
    { message: 'PUBLIC_URL must be an https:// URL (http:// on a loopback address)' },
  )
  PUBLIC_URL = 'http://127.0.0.1:3000';

  static crossCheck(env: Readonly<Record<string, unknown>>): string[] {
    const problems: string[] = [];
    if (Number(env.HTTP_HEADERS_TIMEOUT_MS) > Number(env.HTTP_REQUEST_TIMEOUT_MS)) {
      problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
    }
    if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      problems.push(
        "METRICS_PORT must differ from PORT: the metrics' port is one the API's callers cannot reach",
      );
    }
    if (env.METRICS_PORT !== undefined && env.METRICS_ON_API_PORT === true) {
      problems.push(
        'METRICS_ON_API_PORT=true serves /metrics on the API’s port, METRICS_PORT on a port of its own: set one',
      );
    }
    problems.push(...publicUrlProblems(env.PUBLIC_URL));
    return problems;
  }
}

export const httpConfig = registerAs('http', () => {
  const env = readEnvironment(HttpEnvironment);
  return {
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    corsOrigins: parseListEnv(env.CORS_ORIGINS),
    headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    listeners: env.HTTP_LISTENERS ?? (process.platform === 'linux' ? 64 : 1),
    shedLagMs: env.HTTP_SHED_LAG_MS,
    metricsEnabled: env.METRICS_ENABLED,
    requireIfMatch: env.REQUIRE_IF_MATCH,
    metricsPort: env.METRICS_PORT,
    metricsOnApiPort: env.METRICS_ON_API_PORT ?? readEnvironment(AppEnvironment).NODE_ENV !== 'production',
    docsEnabled: env.DOCS_ENABLED,
    publicUrl: publicUrlOf(env.PUBLIC_URL),
  };
});

export type HttpConfig = ConfigType<typeof httpConfig>;

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') {
    return false;
  }
  if (value === 'true') {
    return true;
  }
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** The URL as `servers` gives it: paths are appended to it, so it ends without a slash. */
export function publicUrlOf(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A token sent to a plain-http address crosses the network in clear: only
 * this machine may be reached so. Credentials, a query or a fragment would
 * end up in every generated client.
 */
function publicUrlProblems(value: unknown): string[] {
  const url = typeof value === 'string' ? URL.parse(value) : null;
  if (!url) {
    return [];
  }
  const problems: string[] = [];
  if (url.protocol === 'http:' && !isLoopbackUrl(url.href)) {
    problems.push('PUBLIC_URL must use https (plain http is allowed on a loopback address only)');
  }
  if (url.username || url.password || url.search || url.hash) {
    problems.push('PUBLIC_URL must be a base URL: no credentials, query or fragment');
  }
  return problems;
}

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

/** The HTTP edge: timeouts, proxies, browsers, metrics (docs/configuration.md). */
@Environment()
export class HttpEnvironment {
  @IntegerVariable(100, 600_000)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  @IntegerVariable(100, 600_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  @IntegerVariable(100, 600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;

  @IntegerVariable(1, 256)
  HTTP_LISTENERS?: number;

  @IntegerVariable(0, 60_000)
  HTTP_SHED_LAG_MS = 500;

  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @BooleanVariable()
  METRICS_ENABLED = true;

  @BooleanVariable()
  REQUIRE_IF_MATCH = false;

  @IntegerVariable(0, 65535)
  METRICS_PORT?: number;

  /** Unset: not in production, where whatever routes the API's port (an ingress) would expose them. */
  @BooleanVariable()
  METRICS_ON_API_PORT?: boolean;

  @BooleanVariable()
  DOCS_ENABLED = true;

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
 * A token sent to a plain-http address crosses the network in clear: only this machine may be
 * reached so. Credentials, a query or a fragment would end up in every generated client.
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

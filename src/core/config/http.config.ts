import { registerAs, type ConfigType } from '@nestjs/config';

import { parseBooleanEnv, parseListEnv, readEnvironment } from './environment.js';

export const httpConfig = registerAs('http', () => {
  const env = readEnvironment();
  return {
    /**
     * Express's `trust proxy`: which proxies' `X-Forwarded-For` to believe for
     * the client address (rate limits, logs). Unset: none, the peer is the client.
     */
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    /** Origins allowed to call the API from a browser; empty: CORS is off. */
    corsOrigins: parseListEnv(env.CORS_ORIGINS),
    /** A client gets this long to send its request headers (slow-header attacks), and this long for the whole request. */
    headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS ?? 10_000,
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS ?? 30_000,
    /** An idle keep-alive connection is closed after this long; keep it above a load balancer's idle timeout. */
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? 5_000,
    metricsEnabled: parseBooleanEnv(env.METRICS_ENABLED, true),
  };
});

export type HttpConfig = ConfigType<typeof httpConfig>;

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') {
    return false;
  }
  if (value === 'true') {
    return true;
  }
  return /^\d+$/.test(value) ? Number(value) : value;
}

import { registerAs, type ConfigType } from '@nestjs/config';

import { parseListEnv, readEnvironment } from './environment.js';

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

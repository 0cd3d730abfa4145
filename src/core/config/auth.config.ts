import { createHash } from 'node:crypto';

import { registerAs, type ConfigType } from '@nestjs/config';

import {
  DEFAULT_JWKS_ALGORITHMS,
  parseListEnv,
  readEnvironment,
  SHA256_TOKEN_ENTRY_PATTERN,
} from './environment.js';

/**
 * A static token as configured: either the token itself or the SHA-256 digest
 * of it (`sha256:<hex>`), so that no plaintext token needs to sit in the
 * environment. Either way only the digest is kept in memory.
 */
export interface StaticTokenDigest {
  readonly sha256: Buffer;
}

export type JwtKeySource =
  | { readonly kind: 'jwks'; readonly url: URL; readonly timeoutMs: number; readonly cacheMaxAgeMs: number }
  | { readonly kind: 'secret'; readonly secret: Uint8Array };

export interface JwtSettings {
  readonly keys: JwtKeySource;
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
}

export const authConfig = registerAs('auth', () => {
  const env = readEnvironment();
  return {
    staticTokens: parseListEnv(env.AUTH_TOKENS).map(toDigest),
    jwt: jwtSettings(env),
    /** Failed authentications one client address may make per window before it is refused with 429. */
    failureLimit: {
      limit: env.RATE_LIMIT_AUTH_FAILURES ?? 20,
      windowMs: env.RATE_LIMIT_AUTH_WINDOW_MS ?? 60_000,
    },
    /** Requests one token may make per window (0: no limit). */
    tokenLimit: {
      limit: env.RATE_LIMIT_PER_TOKEN ?? 100_000,
      windowMs: env.RATE_LIMIT_TOKEN_WINDOW_MS ?? 60_000,
    },
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;

function toDigest(entry: string): StaticTokenDigest {
  const digest = SHA256_TOKEN_ENTRY_PATTERN.exec(entry);
  return { sha256: digest ? Buffer.from(digest[1], 'hex') : createHash('sha256').update(entry).digest() };
}

function jwtSettings(env: ReturnType<typeof readEnvironment>): JwtSettings | undefined {
  if (!env.AUTH_ISSUER || !env.AUTH_AUDIENCE) {
    return undefined;
  }
  const common = {
    issuer: env.AUTH_ISSUER,
    audience: env.AUTH_AUDIENCE,
    clockToleranceSeconds: env.AUTH_JWT_CLOCK_TOLERANCE_S ?? 5,
  };
  if (env.AUTH_JWKS_URL) {
    const algorithms = parseListEnv(env.AUTH_JWT_ALGORITHMS);
    return {
      ...common,
      keys: {
        kind: 'jwks',
        url: new URL(env.AUTH_JWKS_URL),
        timeoutMs: env.AUTH_JWKS_TIMEOUT_MS ?? 2_000,
        cacheMaxAgeMs: env.AUTH_JWKS_CACHE_MS ?? 600_000,
      },
      // A key set signs asymmetrically: HS256 there would let a public key serve as an HMAC secret.
      algorithms: (algorithms.length > 0 ? algorithms : [...DEFAULT_JWKS_ALGORITHMS]).filter(
        (algorithm) => algorithm !== 'HS256',
      ),
    };
  }
  if (env.AUTH_JWT_SECRET) {
    return {
      ...common,
      keys: { kind: 'secret', secret: new TextEncoder().encode(env.AUTH_JWT_SECRET) },
      algorithms: ['HS256'],
    };
  }
  return undefined;
}

import { createHash } from 'node:crypto';

import { registerAs, type ConfigType } from '@nestjs/config';
import { IsOptional, IsString, IsUrl, MinLength } from 'class-validator';

import type { KeySetSettings } from '../auth/issuer-key-set.js';
import {
  Environment,
  IntegerVariable,
  isLoopbackUrl,
  parseListEnv,
  readEnvironment,
  VariableRule,
} from './environment.js';

/** RFC 6750 `b64token`: the characters a bearer token may consist of. */
export const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const SHA256_TOKEN_ENTRY_PATTERN = /^sha256:([0-9a-fA-F]{64})$/;
/** `<name>:<token>` or `<name>:sha256:<hex>`: the name is what logs and the audit trail call the token. */
const NAMED_TOKEN_ENTRY_PATTERN = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}):(.+)$/;
export const MIN_STATIC_TOKEN_LENGTH = 16;

/** Asymmetric algorithms a key set may use; `none` and the HMAC ones are never accepted from a key set. */
export const JWKS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
export const DEFAULT_JWKS_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** A `typ` header: a media type, `application/` left out or not (RFC 7515 §4.1.9). */
const JWT_TYPE_PATTERN = /^[A-Za-z0-9!#$&^_.+-]+(?:\/[A-Za-z0-9!#$&^_.+-]+)?$/;
const DURATION_PATTERN = /^(\d{1,9})\s*([smhd]?)$/;
const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3_600, d: 86_400 };
export const MIN_JWT_MAX_AGE_SECONDS = 60;
export const MAX_JWT_MAX_AGE_SECONDS = 30 * 86_400;

/** Only digests are kept; given as `sha256:<hex>`, no plaintext token need sit in the environment. */
export interface StaticTokenDigest {
  readonly sha256: Buffer;
  /** The name the entry gives it, if any (`ci:<token>`). */
  readonly name?: string;
}

export type JwtKeySource =
  ({ readonly kind: 'jwks' } & KeySetSettings) | { readonly kind: 'secret'; readonly secret: Uint8Array };

export interface JwtSettings {
  readonly keys: JwtKeySource;
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  /** As media types (`application/at+jwt`). */
  readonly types: readonly string[];
  readonly maxAgeSeconds: number;
}

/** Who may call: static tokens, JWTs, rate limits on tokens and failed attempts (docs/configuration.md). */
@Environment()
export class AuthEnvironment {
  @IsOptional()
  @IsString()
  @VariableRule('isTokenList', tokenListProblems)
  AUTH_TOKENS?: string;

  @IsOptional()
  @IsUrl(
    { require_tld: false, protocols: ['https', 'http'], require_protocol: true },
    { message: 'AUTH_JWKS_URL must be a URL' },
  )
  AUTH_JWKS_URL?: string;

  @IsOptional()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters (256 bits for HS256)' })
  AUTH_JWT_SECRET?: string;

  @IsOptional()
  @IsString()
  AUTH_ISSUER?: string;

  @IsOptional()
  @IsString()
  AUTH_AUDIENCE?: string;

  @IsOptional()
  @VariableRule('isAlgorithmList', algorithmListProblems)
  AUTH_JWT_ALGORITHMS?: string;

  @IntegerVariable(0, 30)
  AUTH_JWT_CLOCK_TOLERANCE_S = 5;

  @VariableRule('isJwtTypeList', jwtTypeListProblems)
  AUTH_JWT_TYPES = 'JWT,at+jwt';

  @VariableRule('isJwtMaxAge', jwtMaxAgeProblems)
  AUTH_JWT_MAX_AGE = '24h';

  @IntegerVariable(100, 30_000)
  AUTH_JWKS_TIMEOUT_MS = 2_000;

  @IntegerVariable(1_000)
  AUTH_JWKS_CACHE_MS = 600_000;

  @IntegerVariable(0)
  AUTH_JWKS_MAX_STALE_MS = 3_600_000;

  @IntegerVariable(1_000)
  AUTH_JWKS_COOLDOWN_MS = 30_000;

  @IntegerVariable(0)
  RATE_LIMIT_AUTH_FAILURES = 20;

  @IntegerVariable(1_000)
  RATE_LIMIT_AUTH_WINDOW_MS = 60_000;

  @IntegerVariable(0)
  RATE_LIMIT_PER_TOKEN = 100_000;

  @IntegerVariable(1_000)
  RATE_LIMIT_TOKEN_WINDOW_MS = 60_000;

  @IsOptional()
  @IsUrl(
    { require_tld: false, protocols: ['redis', 'rediss'], require_protocol: true },
    { message: 'REDIS_URL must be a redis:// or rediss:// URL' },
  )
  REDIS_URL?: string;

  @IntegerVariable(10, 1_000)
  REDIS_TIMEOUT_MS = 100;

  static crossCheck(env: Readonly<Record<string, unknown>>): string[] {
    const problems: string[] = [];
    const jwksUrl = typeof env.AUTH_JWKS_URL === 'string' ? env.AUTH_JWKS_URL : undefined;
    const jwt = Boolean(jwksUrl || env.AUTH_JWT_SECRET);
    if (jwksUrl && env.AUTH_JWT_SECRET) {
      problems.push('set AUTH_JWKS_URL or AUTH_JWT_SECRET, not both');
    }
    if (jwt && (!env.AUTH_ISSUER || !env.AUTH_AUDIENCE)) {
      problems.push(
        'JWT authentication needs AUTH_ISSUER and AUTH_AUDIENCE, so that tokens meant for others are refused',
      );
    }
    if (jwksUrl && /^http:/i.test(jwksUrl) && !isLoopbackUrl(jwksUrl)) {
      problems.push('AUTH_JWKS_URL must use https (plain http is allowed on a loopback address only)');
    }
    if (env.AUTH_JWT_SECRET && env.AUTH_JWT_ALGORITHMS && env.AUTH_JWT_ALGORITHMS !== 'HS256') {
      problems.push('AUTH_JWT_SECRET signs with HS256 only: leave AUTH_JWT_ALGORITHMS unset');
    }
    if (env.NODE_ENV === 'production' && !env.AUTH_TOKENS && !jwt) {
      // Fail closed: a production instance nobody can authenticate to is a misconfiguration.
      problems.push(
        'NODE_ENV=production needs AUTH_TOKENS or JWT settings; refusing to start without a way to authenticate',
      );
    }
    return problems;
  }
}

export const authConfig = registerAs('auth', () => {
  const env = readEnvironment(AuthEnvironment);
  return {
    staticTokens: parseListEnv(env.AUTH_TOKENS).map(toDigest),
    jwt: jwtSettings(env),
    failureLimit: { limit: env.RATE_LIMIT_AUTH_FAILURES, windowMs: env.RATE_LIMIT_AUTH_WINDOW_MS },
    tokenLimit: { limit: env.RATE_LIMIT_PER_TOKEN, windowMs: env.RATE_LIMIT_TOKEN_WINDOW_MS },
    redis: env.REDIS_URL ? { url: env.REDIS_URL, timeoutMs: env.REDIS_TIMEOUT_MS } : undefined,
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;

function toDigest(entry: string): StaticTokenDigest {
  const { name, token } = splitTokenEntry(entry);
  const digest = SHA256_TOKEN_ENTRY_PATTERN.exec(token);
  const sha256 = digest ? Buffer.from(digest[1], 'hex') : createHash('sha256').update(token).digest();
  return name === undefined ? { sha256 } : { sha256, name };
}

/** An entry's name, if it gives one, and its token or digest: a bearer token has no `:` of its own. */
function splitTokenEntry(entry: string): { name?: string; token: string } {
  const named = SHA256_TOKEN_ENTRY_PATTERN.test(entry) ? null : NAMED_TOKEN_ENTRY_PATTERN.exec(entry);
  return named ? { name: named[1], token: named[2] } : { token: entry };
}

function jwtSettings(env: AuthEnvironment): JwtSettings | undefined {
  if (!env.AUTH_ISSUER || !env.AUTH_AUDIENCE) {
    return undefined;
  }
  const common = {
    issuer: env.AUTH_ISSUER,
    audience: env.AUTH_AUDIENCE,
    clockToleranceSeconds: env.AUTH_JWT_CLOCK_TOLERANCE_S,
    types: parseListEnv(env.AUTH_JWT_TYPES).map(normalizeJwtType),
    maxAgeSeconds: durationSeconds(env.AUTH_JWT_MAX_AGE)!,
  };
  if (env.AUTH_JWKS_URL) {
    const algorithms = parseListEnv(env.AUTH_JWT_ALGORITHMS ?? DEFAULT_JWKS_ALGORITHMS.join(','));
    return {
      ...common,
      keys: {
        kind: 'jwks',
        url: new URL(env.AUTH_JWKS_URL),
        timeoutMs: env.AUTH_JWKS_TIMEOUT_MS,
        cacheMaxAgeMs: env.AUTH_JWKS_CACHE_MS,
        maxStaleMs: env.AUTH_JWKS_MAX_STALE_MS,
        cooldownMs: env.AUTH_JWKS_COOLDOWN_MS,
      },
      // A key set signs asymmetrically: HS256 there would let a public key serve as an HMAC secret.
      algorithms: algorithms.filter((algorithm) => algorithm !== 'HS256'),
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

function algorithmListProblems(value: unknown): string[] {
  const entries = parseListEnv(value);
  const known = entries.every(
    (entry) => (JWKS_ALGORITHMS as readonly string[]).includes(entry) || entry === 'HS256',
  );
  return entries.length > 0 && known
    ? []
    : [`AUTH_JWT_ALGORITHMS must list algorithms among ${JWKS_ALGORITHMS.join(', ')}`];
}

/**
 * Media types compare case-insensitively, and a `typ` without `/` means `application/` before it
 * (RFC 7515 §4.1.9): `at+jwt`, `AT+JWT` and `application/at+jwt` are one type.
 */
export function normalizeJwtType(type: string): string {
  const lower = type.toLowerCase();
  return lower.includes('/') ? lower : `application/${lower}`;
}

function jwtTypeListProblems(value: unknown): string[] {
  const entries = parseListEnv(value);
  return entries.length > 0 && entries.every((entry) => JWT_TYPE_PATTERN.test(entry))
    ? []
    : ['AUTH_JWT_TYPES must list media types, comma-separated (JWT,at+jwt)'];
}

function durationSeconds(value: string): number | undefined {
  const match = DURATION_PATTERN.exec(value.trim());
  return match ? Number(match[1]) * SECONDS_PER_UNIT[match[2]] : undefined;
}

function jwtMaxAgeProblems(value: unknown): string[] {
  const seconds = typeof value === 'string' ? durationSeconds(value) : undefined;
  return seconds !== undefined && seconds >= MIN_JWT_MAX_AGE_SECONDS && seconds <= MAX_JWT_MAX_AGE_SECONDS
    ? []
    : ['AUTH_JWT_MAX_AGE must be from 60s to 30d: seconds, or a number with s, m, h or d (24h)'];
}

/** What is wrong with each entry of the list, by position: an entry is a secret and never echoed. */
function tokenListProblems(value: unknown): string[] {
  const entries = parseListEnv(value).map(splitTokenEntry);
  const names = entries.flatMap(({ name }) => (name === undefined ? [] : [name]));
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  return entries.flatMap(({ token: entry }, index) => {
    const position = `AUTH_TOKENS entry ${index + 1}`;
    if (index === 0 && repeated.length > 0) {
      return [`AUTH_TOKENS names ${repeated.join(', ')} more than once: a name says which token was used`];
    }
    if (SHA256_TOKEN_ENTRY_PATTERN.test(entry)) {
      return [];
    }
    if (!BEARER_TOKEN_PATTERN.test(entry)) {
      return [
        `${position} has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`,
      ];
    }
    if (entry.length < MIN_STATIC_TOKEN_LENGTH) {
      return [`${position} is shorter than ${MIN_STATIC_TOKEN_LENGTH} characters`];
    }
    return [];
  });
}

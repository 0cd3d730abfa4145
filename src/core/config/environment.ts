import { plainToInstance, Type } from 'class-transformer';
import {
  IsBooleanString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  registerDecorator,
  validateSync,
} from 'class-validator';

import { InvalidConfigurationError } from './configuration-error.js';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** RFC 6750 `b64token`: the characters a bearer token may consist of. */
export const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const SHA256_TOKEN_ENTRY_PATTERN = /^sha256:([0-9a-fA-F]{64})$/;
export const MIN_STATIC_TOKEN_LENGTH = 16;

/** A Standard Webhooks secret is this prefix and the base64 of the HMAC key. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The key sizes the Standard Webhooks specification allows. */
const MIN_WEBHOOK_KEY_BYTES = 24;
const MAX_WEBHOOK_KEY_BYTES = 64;
/** Padded base64 of the standard alphabet, as `base64` and every Standard Webhooks library write it. */
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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

/**
 * Every environment variable the service reads, with its rules. They are all
 * checked together, so that a bad start names every problem at once; the
 * `*.config.ts` files turn them into typed settings per concern.
 */
export class Environment {
  // class-validator checks a property's rules from the bottom up: the type comes last, so it is checked first.

  // The process
  @IsOptional()
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV?: NodeEnvironment;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(65535)
  @IsInt()
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: LogLevel;

  @IsOptional()
  @IsIn(LOG_FORMATS)
  LOG_FORMAT?: LogFormat;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(600_000)
  @IsInt()
  SHUTDOWN_TIMEOUT_MS?: number;

  // The database
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @IsBooleanString()
  DATABASE_MIGRATIONS_RUN?: string;

  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @Max(200)
  @IsInt()
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @IsString()
  EMBEDDED_POSTGRES_DIR?: string;

  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @Max(200)
  @IsInt()
  DATABASE_WRITE_CONCURRENCY?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(60_000)
  @IsInt()
  DATABASE_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(600_000)
  @IsInt()
  DATABASE_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(1_000)
  @IsInt()
  DATABASE_CONNECT_RETRIES?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(60_000)
  @IsInt()
  DATABASE_CONNECT_RETRY_DELAY_MS?: number;

  // Authentication
  @IsOptional()
  @IsString()
  @IsTokenList()
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
  @IsAlgorithmList()
  AUTH_JWT_ALGORITHMS?: string;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(30)
  @IsInt()
  AUTH_JWT_CLOCK_TOLERANCE_S?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(30_000)
  @IsInt()
  AUTH_JWKS_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(1_000)
  @IsInt()
  AUTH_JWKS_CACHE_MS?: number;

  // Rate limits (0 switches one off)
  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @IsInt()
  RATE_LIMIT_AUTH_FAILURES?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(1_000)
  @IsInt()
  RATE_LIMIT_AUTH_WINDOW_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @IsInt()
  RATE_LIMIT_PER_TOKEN?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(1_000)
  @IsInt()
  RATE_LIMIT_TOKEN_WINDOW_MS?: number;

  // The HTTP edge
  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(600_000)
  @IsInt()
  HTTP_HEADERS_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(600_000)
  @IsInt()
  HTTP_REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(600_000)
  @IsInt()
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;

  @IsOptional()
  @IsBooleanString()
  METRICS_ENABLED?: string;

  // Webhooks
  @IsOptional()
  @IsUrlList()
  WEBHOOK_URLS?: string;

  @IsOptional()
  @IsString()
  @IsWebhookSecretList()
  WEBHOOK_SECRET?: string;

  @IsOptional()
  @Type(() => Number)
  @Min(100)
  @Max(60_000)
  @IsInt()
  WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @Max(100)
  @IsInt()
  WEBHOOK_MAX_ATTEMPTS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(10)
  @Max(3_600_000)
  @IsInt()
  WEBHOOK_BACKOFF_BASE_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(10)
  @Max(86_400_000)
  @IsInt()
  WEBHOOK_BACKOFF_MAX_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(10)
  @Max(60_000)
  @IsInt()
  WEBHOOK_POLL_INTERVAL_MS?: number;

  /** 0 keeps delivered and dead events for ever. */
  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @IsInt()
  WEBHOOK_RETENTION_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @Min(1_000)
  @Max(86_400_000)
  @IsInt()
  WEBHOOK_CLEANUP_INTERVAL_MS?: number;

  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;
}

/** The validated environment; throws one error that lists every problem. */
export function readEnvironment(env: Record<string, unknown> = process.env): Environment {
  const values = plainToInstance(Environment, { ...env });
  const errors = validateSync(values, { stopAtFirstError: true, forbidUnknownValues: true });
  const problems = errors.flatMap((error) => Object.values(error.constraints ?? {}));
  problems.push(...combinationProblems(values));
  if (problems.length > 0) {
    throw InvalidConfigurationError.listing(problems);
  }
  return values;
}

/** Rules that involve more than one variable. */
function combinationProblems(env: Environment): string[] {
  const problems: string[] = [];
  const jwt = Boolean(env.AUTH_JWKS_URL || env.AUTH_JWT_SECRET);
  if ((env.HTTP_HEADERS_TIMEOUT_MS ?? 10_000) > (env.HTTP_REQUEST_TIMEOUT_MS ?? 30_000)) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (env.AUTH_JWKS_URL && env.AUTH_JWT_SECRET) {
    problems.push('set AUTH_JWKS_URL or AUTH_JWT_SECRET, not both');
  }
  if (jwt && (!env.AUTH_ISSUER || !env.AUTH_AUDIENCE)) {
    problems.push(
      'JWT authentication needs AUTH_ISSUER and AUTH_AUDIENCE, so that tokens meant for others are refused',
    );
  }
  if (env.AUTH_JWKS_URL && /^http:/i.test(env.AUTH_JWKS_URL) && !isLoopbackUrl(env.AUTH_JWKS_URL)) {
    problems.push('AUTH_JWKS_URL must use https (plain http is allowed on a loopback address only)');
  }
  if (env.AUTH_JWT_SECRET && env.AUTH_JWT_ALGORITHMS && env.AUTH_JWT_ALGORITHMS !== 'HS256') {
    problems.push('AUTH_JWT_SECRET signs with HS256 only: leave AUTH_JWT_ALGORITHMS unset');
  }
  if (env.WEBHOOK_URLS && !env.WEBHOOK_SECRET) {
    problems.push('WEBHOOK_URLS needs WEBHOOK_SECRET, to sign what is sent');
  }
  if (env.NODE_ENV === 'production' && !env.DATABASE_URL) {
    problems.push('NODE_ENV=production needs DATABASE_URL (the embedded PostgreSQL is for development)');
  }
  if (env.NODE_ENV === 'production' && !env.AUTH_TOKENS && !jwt) {
    // Fail closed: a production instance nobody can authenticate to is a misconfiguration.
    problems.push(
      'NODE_ENV=production needs AUTH_TOKENS or JWT settings; refusing to start without a way to authenticate',
    );
  }
  return problems;
}

function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

function IsUrlList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isUrlList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'WEBHOOK_URLS must list http:// or https:// URLs, separated by commas' },
      validator: {
        validate: (value: unknown) =>
          parseListEnv(typeof value === 'string' ? value : '').every((entry) => {
            try {
              return ['http:', 'https:'].includes(new URL(entry).protocol);
            } catch {
              return false;
            }
          }),
      },
    });
}

function IsAlgorithmList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAlgorithmList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `AUTH_JWT_ALGORITHMS must list algorithms among ${JWKS_ALGORITHMS.join(', ')}` },
      validator: {
        validate: (value: unknown) => {
          const entries = parseListEnv(typeof value === 'string' ? value : '');
          return (
            entries.length > 0 &&
            entries.every(
              (entry) => (JWKS_ALGORITHMS as readonly string[]).includes(entry) || entry === 'HS256',
            )
          );
        },
      },
    });
}

/** What is wrong with each entry of the list, by position: an entry is a secret and never echoed. */
function tokenListProblems(value: unknown): string[] {
  return parseListEnv(typeof value === 'string' ? value : '').flatMap((entry, index) => {
    const position = `AUTH_TOKENS entry ${index + 1}`;
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

/**
 * The HMAC key of a `whsec_<base64>` secret, or undefined when the entry is
 * not one. The base64 must be canonical (it encodes back to itself), so that
 * a secret copied with a character lost or changed is refused rather than
 * silently becoming another key.
 */
export function decodeWebhookSecret(entry: string): Buffer | undefined {
  if (!entry.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return undefined;
  }
  const encoded = entry.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64_PATTERN.test(encoded)) {
    return undefined;
  }
  const key = Buffer.from(encoded, 'base64');
  return key.toString('base64') === encoded ? key : undefined;
}

/** What is wrong with each secret of the list, by position: a secret is never echoed. */
function webhookSecretProblems(value: unknown): string[] {
  const entries = parseListEnv(typeof value === 'string' ? value : '');
  if (entries.length === 0) {
    return ['WEBHOOK_SECRET must list one or more secrets, separated by commas'];
  }
  return entries.flatMap((entry, index) => {
    const position = `WEBHOOK_SECRET entry ${index + 1}`;
    if (!entry.startsWith(WEBHOOK_SECRET_PREFIX)) {
      // Most likely a secret of the signatures before Standard Webhooks: its bytes can stay the key.
      return [
        `${position} is not a Standard Webhooks secret (${WEBHOOK_SECRET_PREFIX} and the base64 of the key); ` +
          `to keep the key of a plain secret, write ${WEBHOOK_SECRET_PREFIX} followed by ` +
          `the output of: printf %s "$OLD_SECRET" | base64 | tr -d '\\n' (see docs/webhooks.md)`,
      ];
    }
    const key = decodeWebhookSecret(entry);
    if (!key) {
      return [`${position} is not valid padded base64 after ${WEBHOOK_SECRET_PREFIX}`];
    }
    if (key.length < MIN_WEBHOOK_KEY_BYTES || key.length > MAX_WEBHOOK_KEY_BYTES) {
      return [`${position} must encode a key of ${MIN_WEBHOOK_KEY_BYTES} to ${MAX_WEBHOOK_KEY_BYTES} bytes`];
    }
    return [];
  });
}

function IsWebhookSecretList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWebhookSecretList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ value }) => webhookSecretProblems(value).join('; ') },
      validator: { validate: (value: unknown) => webhookSecretProblems(value).length === 0 },
    });
}

function IsTokenList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTokenList',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ value }) => tokenListProblems(value).join('; ') },
      validator: { validate: (value: unknown) => tokenListProblems(value).length === 0 },
    });
}

/** Reads an optional boolean variable written as `true`/`false` (or `1`/`0`). */
export function parseBooleanEnv(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') {
    return fallback;
  }
  return value === 'true' || value === '1';
}

/** Splits a comma-separated variable into its trimmed, non-empty entries. */
export function parseListEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

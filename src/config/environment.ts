import { plainToInstance, Type } from 'class-transformer';
import {
  IsBooleanString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
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

  // Authentication
  @IsOptional()
  @IsString()
  @IsTokenList()
  AUTH_TOKENS?: string;
}

/** The validated environment; throws one error that lists every problem. */
export function readEnvironment(env: Record<string, unknown> = process.env): Environment {
  const values = plainToInstance(Environment, { ...env });
  const errors = validateSync(values, { stopAtFirstError: true, forbidUnknownValues: true });
  const problems = errors.flatMap((error) => Object.values(error.constraints ?? {}));
  if (problems.length > 0) {
    throw InvalidConfigurationError.listing(problems);
  }
  return values;
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

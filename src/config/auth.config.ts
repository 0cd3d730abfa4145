import { createHash } from 'node:crypto';

import { registerAs, type ConfigType } from '@nestjs/config';
import { IsOptional, IsString } from 'class-validator';

import { InvalidConfigurationError, parseListEnv, validateEnv } from './validate-env.js';

class AuthEnvironment {
  @IsOptional()
  @IsString()
  AUTH_TOKENS?: string;
}

/** RFC 6750 `b64token`: the characters a bearer token may consist of. */
const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
const SHA256_ENTRY_PATTERN = /^sha256:([0-9a-fA-F]{64})$/;
export const MIN_STATIC_TOKEN_LENGTH = 16;

/**
 * A static token as configured: either the token itself or the SHA-256 digest
 * of it (`sha256:<hex>`), so that no plaintext token needs to sit in the
 * environment. Either way only the digest is kept in memory.
 */
export interface StaticTokenDigest {
  readonly sha256: Buffer;
}

export const authConfig = registerAs('auth', () => {
  const env = validateEnv(AuthEnvironment);
  return {
    staticTokens: parseListEnv(env.AUTH_TOKENS).map(parseStaticTokenEntry),
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;

function parseStaticTokenEntry(entry: string, index: number): StaticTokenDigest {
  const digest = SHA256_ENTRY_PATTERN.exec(entry);
  if (digest) {
    return { sha256: Buffer.from(digest[1], 'hex') };
  }
  // Never echo the entry itself: it is a secret.
  const position = `AUTH_TOKENS entry ${index + 1}`;
  if (!BEARER_TOKEN_PATTERN.test(entry)) {
    throw new InvalidConfigurationError(
      `Invalid configuration: ${position} contains characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`,
    );
  }
  if (entry.length < MIN_STATIC_TOKEN_LENGTH) {
    throw new InvalidConfigurationError(
      `Invalid configuration: ${position} is shorter than ${MIN_STATIC_TOKEN_LENGTH} characters`,
    );
  }
  return { sha256: createHash('sha256').update(entry).digest() };
}

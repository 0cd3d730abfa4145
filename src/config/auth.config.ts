import { createHash } from 'node:crypto';

import { registerAs, type ConfigType } from '@nestjs/config';

import { parseListEnv, readEnvironment, SHA256_TOKEN_ENTRY_PATTERN } from './environment.js';

/**
 * A static token as configured: either the token itself or the SHA-256 digest
 * of it (`sha256:<hex>`), so that no plaintext token needs to sit in the
 * environment. Either way only the digest is kept in memory.
 */
export interface StaticTokenDigest {
  readonly sha256: Buffer;
}

export const authConfig = registerAs('auth', () => {
  const env = readEnvironment();
  return {
    staticTokens: parseListEnv(env.AUTH_TOKENS).map(toDigest),
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;

function toDigest(entry: string): StaticTokenDigest {
  const digest = SHA256_TOKEN_ENTRY_PATTERN.exec(entry);
  return { sha256: digest ? Buffer.from(digest[1], 'hex') : createHash('sha256').update(entry).digest() };
}

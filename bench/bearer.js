/**
 * The ceilings' bearer check: the token in `Authorization: Bearer <token>`
 * against AUTH_TOKENS, compared by SHA-256 digest in constant time, as the
 * service compares its static tokens.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const DIGESTS = (process.env.AUTH_TOKENS ?? '')
  .split(',')
  .filter((token) => token.trim() !== '')
  .map((token) => sha256(token.trim()));

function sha256(text) {
  return createHash('sha256').update(text).digest();
}

/** Whether the `Authorization` header carries one of the configured tokens. */
export function authorized(header) {
  const token = BEARER_CREDENTIALS.exec(header ?? '')?.[1];
  if (token === undefined) {
    return false;
  }
  const presented = sha256(token);
  let valid = false;
  for (const digest of DIGESTS) {
    valid = timingSafeEqual(presented, digest) || valid;
  }
  return valid;
}

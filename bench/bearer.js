/**
 * Bearer tokens as the service checks its static ones: by SHA-256 digest,
 * every digest compared in constant time whichever matches. The ceilings
 * check `Authorization: Bearer <token>` against AUTH_TOKENS with
 * `authorized()`; the floor, which also takes digests in AUTH_TOKENS and
 * tells a missing token from a wrong one, with `matchesAny()`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const DIGESTS = (process.env.AUTH_TOKENS ?? '')
  .split(',')
  .filter((token) => token.trim() !== '')
  .map((token) => sha256(token.trim()));

export function sha256(text) {
  return createHash('sha256').update(text).digest();
}

/** Whether `token`'s digest is one of `digests`, each compared in constant time. */
export function matchesAny(token, digests) {
  const presented = sha256(token);
  let valid = false;
  for (const digest of digests) {
    valid = timingSafeEqual(presented, digest) || valid;
  }
  return valid;
}

/** Whether the `Authorization` header carries one of the configured tokens. */
export function authorized(header) {
  const token = BEARER_CREDENTIALS.exec(header ?? '')?.[1];
  return token !== undefined && matchesAny(token, DIGESTS);
}

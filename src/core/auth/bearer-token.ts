/**
 * RFC 6750 §2.1: `Bearer` (any letter case), one or more spaces, then a
 * b64token. Anything else carries no usable bearer token.
 */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;

export type BearerCredentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

export function readBearerCredentials(authorization: string | undefined): BearerCredentials {
  if (authorization === undefined || !BEARER_SCHEME.test(authorization)) {
    // No credentials, or another scheme (Basic, …): the client did not try a bearer token.
    return { kind: 'none' };
  }
  const match = BEARER_CREDENTIALS.exec(authorization);
  return match ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}

/** RFC 6750 §2.1: `Bearer` in any letter case, one or more spaces, then a b64token. */
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

const AUTHORIZATION = 'authorization';

/**
 * Node keeps the first `Authorization` and drops the others silently, while a proxy or a log in front
 * may read another, and the two would disagree about who is calling. Counted in `rawHeaders`, as
 * `headersDistinct` copies every header of every request.
 */
export function hasRepeatedAuthorization(rawHeaders: readonly string[]): boolean {
  let seen = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === AUTHORIZATION.length && name.toLowerCase() === AUTHORIZATION && ++seen > 1) {
      return true;
    }
  }
  return false;
}

import type { Principal } from './principal.js';
import type { StaticTokenVerifier } from './static-token.verifier.js';

/**
 * Turns a bearer token into a principal, or `undefined` when no configured
 * issuer vouches for it.
 */
export class AccessTokenVerifier {
  constructor(private readonly staticTokens: StaticTokenVerifier) {}

  verify(token: string): Principal | undefined | Promise<Principal | undefined> {
    return this.staticTokens.verify(token);
  }
}

import { JwtVerifier } from './jwt.verifier.js';
import type { Principal } from './principal.js';
import type { StaticTokenVerifier } from './static-token.verifier.js';

/** Static tokens first, synchronously; then the JWT verifier, when the token has a JWT's shape. */
export class AccessTokenVerifier {
  constructor(
    private readonly staticTokens: StaticTokenVerifier,
    private readonly jwt?: JwtVerifier,
  ) {}

  verify(token: string): Principal | undefined | Promise<Principal | undefined> {
    const principal = this.staticTokens.verify(token);
    if (principal || !this.jwt || !JwtVerifier.looksLikeJwt(token)) {
      return principal;
    }
    return this.jwt.verify(token);
  }
}

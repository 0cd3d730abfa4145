import type { Scope } from './scopes.js';

/** Who made a request, as far as the bearer token tells. */
export interface Principal {
  /** A static token's label, or a JWT's `sub`: something to log, never the token. */
  readonly subject: string;
  readonly hasScope: (scope: Scope) => boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

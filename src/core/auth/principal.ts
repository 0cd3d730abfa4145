import type { Scope } from './scopes.js';

/** Who made a request, as far as the bearer token tells. */
export interface Principal {
  /** `token:<name>` for a static token (its name, or a label), `jwt:<sub>` for a JWT: something to log, never the token. */
  readonly subject: string;
  /** A JWT's issuer (`iss`), which the subject belongs to. */
  readonly issuer?: string;
  readonly hasScope: (scope: Scope) => boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

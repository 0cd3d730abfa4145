import { HttpStatus } from '@nestjs/common';

import { HttpExceptionWithHeaders } from '../errors/error-status.js';
import type { Scope } from './scopes.js';

export const AUTH_REALM = 'plant-store';

/** RFC 6750 §3: the challenge that goes with a refused bearer token. */
export class BearerChallenge extends HttpExceptionWithHeaders {
  static missingToken(): BearerChallenge {
    return new BearerChallenge(
      HttpStatus.UNAUTHORIZED,
      'A bearer token is required: send Authorization: Bearer <token>',
      `Bearer realm="${AUTH_REALM}"`,
    );
  }

  /** Several `Authorization` headers: which one would be the client's is anyone's guess (RFC 6750 §3.1). */
  static repeatedAuthorization(): BearerChallenge {
    return new BearerChallenge(
      HttpStatus.BAD_REQUEST,
      'Send one Authorization header: this request has several',
      `Bearer realm="${AUTH_REALM}", error="invalid_request"`,
    );
  }

  /** With `headers` of its own: what is left of the address's budget of failures, say. */
  static invalidToken(headers: Readonly<Record<string, string>> = {}): BearerChallenge {
    return new BearerChallenge(
      HttpStatus.UNAUTHORIZED,
      'The bearer token is invalid or expired',
      `Bearer realm="${AUTH_REALM}", error="invalid_token"`,
      headers,
    );
  }

  static insufficientScope(scope: Scope): BearerChallenge {
    return new BearerChallenge(
      HttpStatus.FORBIDDEN,
      `The bearer token lacks the ${scope} scope`,
      `Bearer realm="${AUTH_REALM}", error="insufficient_scope", scope="${scope}"`,
    );
  }

  private constructor(
    status: HttpStatus,
    message: string,
    challenge: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(status, message, { ...headers, 'WWW-Authenticate': challenge });
  }
}

import {
  errors,
  type JWSHeaderParameters,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';

import { type JwtSettings, normalizeJwtType } from '../config/auth.config.js';
import { ServiceUnavailableError } from '../errors/domain-error.js';
import { IssuerKeySet, KeySetUnavailableError } from './issuer-key-set.js';
import type { Principal } from './principal.js';
import type { Scope } from './scopes.js';

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * JWTs verified with `jose` as RFC 8725 and RFC 9068 ask (docs/api.md#authentication). `sub` must be
 * a non-empty string: it names the principal the per-token limit counts, and a missing or non-string
 * one would share a budget or pass for another's. The header is checked before any key is looked up
 * (`acceptHeader`), as jose cannot: it always understands `b64` (RFC 7797), and its `typ` option asks
 * for one type, always present.
 */
export class JwtVerifier {
  private readonly key: JWTVerifyGetKey;
  private readonly options: JWTVerifyOptions;

  constructor(private readonly settings: JwtSettings) {
    const keys = settings.keys;
    const lookUp: JWTVerifyGetKey = keys.kind === 'jwks' ? new IssuerKeySet(keys).getKey : () => keys.secret;
    this.key = (header, token) => {
      this.acceptHeader(header);
      return lookUp(header, token);
    };
    this.options = {
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: [...settings.algorithms],
      clockTolerance: settings.clockToleranceSeconds,
      // With a maximum age, jose requires `iat` and refuses one in the future.
      maxTokenAge: settings.maxAgeSeconds,
      requiredClaims: ['exp', 'iat', 'sub'],
    };
  }

  static looksLikeJwt(token: string): boolean {
    return COMPACT_JWS.test(token);
  }

  async verify(token: string): Promise<Principal | undefined> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, this.options));
    } catch (error) {
      if (isKeySetUnavailable(error)) {
        throw new ServiceUnavailableError("The token issuer's key set cannot be fetched; retry later", {
          cause: error,
          // IssuerKeySet logs each fetch that fails, once for every request it leaves without keys.
          loggedAtSource: error instanceof KeySetUnavailableError || error instanceof errors.JWKSTimeout,
        });
      }
      return undefined;
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      return undefined;
    }
    const scopes = scopesOf(payload);
    return {
      subject: `jwt:${payload.sub}`,
      issuer: payload.iss,
      hasScope: (scope: Scope) => scopes.has(scope),
    };
  }

  /**
   * No extension is understood here, `b64` included, so any `crit` is refused; a `typ` other than those
   * configured marks a token made for another use (`dpop+jwt`, a logout token).
   */
  private acceptHeader(header: JWSHeaderParameters): void {
    if (header.crit !== undefined) {
      throw new errors.JOSENotSupported('no extension header parameter is understood ("crit")');
    }
    const { typ } = header as { typ?: unknown };
    if (
      typ !== undefined &&
      (typeof typ !== 'string' || !this.settings.types.includes(normalizeJwtType(typ)))
    ) {
      throw new errors.JWTInvalid('unexpected "typ" JWT header value');
    }
  }
}

function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  const listed = [scope, scp].flatMap((claim) =>
    typeof claim === 'string'
      ? claim.split(' ')
      : Array.isArray(claim)
        ? claim.filter((item) => typeof item === 'string')
        : [],
  );
  return new Set(listed.filter((entry) => entry.length > 0));
}

/** The key set could not be had (network, timeout, garbage): no verdict on the token itself. */
function isKeySetUnavailable(error: unknown): boolean {
  if (error instanceof KeySetUnavailableError || error instanceof errors.JWKSTimeout) {
    return true;
  }
  return !(error instanceof errors.JOSEError);
}

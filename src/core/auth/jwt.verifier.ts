import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

import type { JwtSettings } from '../config/auth.config.js';
import { ServiceUnavailableError } from '../errors/domain-error.js';
import { IssuerKeySet, KeySetUnavailableError } from './issuer-key-set.js';
import type { Principal } from './principal.js';
import type { Scope } from './scopes.js';

/** Three base64url segments: the shape of a compact JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Verifies JWT bearer tokens with `jose`: the signature (with the issuer's key
 * set, kept through its outages by `IssuerKeySet`, or a shared HS256 secret),
 * the algorithm against the allow-list (`none` is never on it), `iss`, `aud`,
 * and required `exp` and `sub`, with a small clock tolerance. `sub` names the
 * principal, whose requests the per-token limit counts: tokens without one
 * would all share one budget. Keys named or carried by the token's header
 * (`jwk`, `jku`, `x5u`, `x5c`) are never used, and an extension it marks
 * critical (`crit`) is refused, as jose does. Scopes come from `scope`
 * (space-separated) or `scp` (a list or a string).
 */
export class JwtVerifier {
  private readonly key: JWTVerifyGetKey | Uint8Array;

  constructor(private readonly settings: JwtSettings) {
    this.key = settings.keys.kind === 'jwks' ? new IssuerKeySet(settings.keys).getKey : settings.keys.secret;
  }

  static looksLikeJwt(token: string): boolean {
    return COMPACT_JWS.test(token);
  }

  async verify(token: string): Promise<Principal | undefined> {
    let payload: JWTPayload;
    try {
      const options = {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: [...this.settings.algorithms],
        clockTolerance: this.settings.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      };
      // The two overloads of jwtVerify differ only in the key's type.
      ({ payload } =
        this.key instanceof Uint8Array
          ? await jwtVerify(token, this.key, options)
          : await jwtVerify(token, this.key, options));
    } catch (error) {
      if (isKeySetUnavailable(error)) {
        throw new ServiceUnavailableError("The token issuer's key set cannot be fetched; retry later", {
          cause: error,
        });
      }
      return undefined;
    }
    if (!payload.sub) {
      return undefined;
    }
    const scopes = scopesOf(payload);
    return {
      subject: `jwt:${payload.sub}`,
      hasScope: (scope: Scope) => scopes.has(scope),
    };
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

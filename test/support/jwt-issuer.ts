import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT, type CryptoKey } from 'jose';

export const ISSUER = 'https://issuer.plant-store.test';
export const AUDIENCE = 'plant-store';

/**
 * A token issuer for the tests: an RSA key pair, and its public key set served
 * on loopback as a real authorization server would serve it.
 */
export class JwtIssuer {
  private constructor(
    readonly jwksUrl: string,
    private readonly server: Server,
    private readonly privateKey: CryptoKey,
    readonly publicKeyPem: string,
    readonly kid: string,
  ) {}

  /** The service's settings to accept this issuer's tokens. */
  get serviceEnv(): Record<string, string> {
    return { AUTH_JWKS_URL: this.jwksUrl, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
  }

  static async start(kid = 'test-key-1'): Promise<JwtIssuer> {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    const server = createServer((request, response) => {
      if (request.url === '/.well-known/jwks.json') {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new JwtIssuer(
      `http://127.0.0.1:${port}/.well-known/jwks.json`,
      server,
      privateKey,
      await exportSPKI(publicKey),
      kid,
    );
  }

  /** A signed token: valid for this service by default; override any claim or header to spoil it. */
  async token(
    claims: Record<string, unknown> = {},
    options: { key?: CryptoKey; kid?: string; expiresIn?: string | number | false } = {},
  ): Promise<string> {
    // The claims given win over the defaults.
    const jwt = new SignJWT({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'client-42',
      scope: 'plants:read plants:write',
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? this.kid })
      .setIssuedAt();
    if (options.expiresIn !== false && !('exp' in claims)) {
      jwt.setExpirationTime(options.expiresIn ?? '5m');
    }
    return jwt.sign(options.key ?? this.privateKey);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A compact JWS with `alg: none`: no signature at all. */
export function unsecuredToken(claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT, type CryptoKey } from 'jose';

export const ISSUER = 'https://issuer.plant-store.test';
export const AUDIENCE = 'plant-store';

/** How the key set's address answers instead of serving the set, when a test says so. */
export type KeySetAnswer = (request: IncomingMessage, response: ServerResponse) => void;

/** An issuer that cannot be reached: the connection is dropped unanswered. */
export const UNREACHABLE: KeySetAnswer = (request) => request.socket.destroy();

/**
 * A token issuer for the tests: an RSA key pair, and its public key set served
 * on loopback as a real authorization server would serve it, once started. It
 * counts the requests for the set, and answers otherwise when a test sets
 * `answer`.
 */
export class JwtIssuer {
  /** Requests for the key set so far. */
  requests = 0;
  /** Unset: the key set. */
  answer?: KeySetAnswer;
  private started?: { server: Server; privateKey: CryptoKey; publicKeyPem: string };

  constructor(readonly kid = 'test-key-1') {}

  get jwksUrl(): string {
    const { port } = this.running.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/.well-known/jwks.json`;
  }

  get publicKeyPem(): string {
    return this.running.publicKeyPem;
  }

  /** The service's settings to accept this issuer's tokens. */
  get serviceEnv(): Record<string, string> {
    return { AUTH_JWKS_URL: this.jwksUrl, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
  }

  async start(): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: this.kid, alg: 'RS256', use: 'sig' };
    // Before the server listens: nothing may fail once it does, or it would be left listening.
    const publicKeyPem = await exportSPKI(publicKey);
    const server = createServer((request, response) => {
      if (request.url !== '/.well-known/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      this.requests++;
      if (this.answer) {
        this.answer(request, response);
      } else {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.started = { server, privateKey, publicKeyPem };
  }

  /**
   * A signed token: valid for this service by default; override any claim or header to spoil
   * it (a claim given as undefined is left out, `iat` included).
   */
  async token(
    claims: Record<string, unknown> = {},
    options: {
      key?: CryptoKey;
      kid?: string;
      expiresIn?: string | number | false;
      /** More header parameters (`jku`, `jwk`, `crit`…). */
      header?: Record<string, unknown>;
    } = {},
  ): Promise<string> {
    // The claims given win over the defaults.
    const jwt = new SignJWT({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'client-42',
      scope: 'plants:read plants:write',
      ...claims,
    }).setProtectedHeader({ alg: 'RS256', kid: options.kid ?? this.kid, ...options.header });
    if (!('iat' in claims)) {
      jwt.setIssuedAt();
    }
    if (options.expiresIn !== false && !('exp' in claims)) {
      jwt.setExpirationTime(options.expiresIn ?? '5m');
    }
    const crit = options.header?.crit;
    return jwt.sign(options.key ?? this.running.privateKey, {
      // jose signs an extension marked critical only when told it is understood.
      crit: Array.isArray(crit) ? Object.fromEntries(crit.map((name: string) => [name, true])) : undefined,
    });
  }

  /** Stops the server, if it started. */
  async stop(): Promise<void> {
    const server = this.started?.server;
    this.started = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private get running(): NonNullable<JwtIssuer['started']> {
    if (!this.started) {
      throw new Error('The issuer has not started');
    }
    return this.started;
  }
}

/** A compact JWS with `alg: none`: no signature at all. */
export function unsecuredToken(claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

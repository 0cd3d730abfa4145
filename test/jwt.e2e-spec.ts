import { generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';

import { createPlantAs } from './support/factories.js';
import { TEST_TOKEN } from './support/environment.js';
import { AUDIENCE, ISSUER, JwtIssuer, unsecuredToken } from './support/jwt-issuer.js';
import { freePort } from './support/service-process.js';
import { startTestApp, type TestApp } from './support/app.js';
import { truncateAll } from './support/database.js';

const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
const now = () => Math.floor(Date.now() / 1000);

/** A create through the running service with this token. */
function create(testApp: TestApp, token: string) {
  return createPlantAs(testApp.url, token);
}

describe('JWT bearer tokens, from a key set served on loopback', () => {
  let issuer: JwtIssuer;
  let testApp: TestApp;

  beforeAll(async () => {
    issuer = await JwtIssuer.start();
    testApp = await startTestApp({
      ...issuer.serviceEnv,
      AUTH_JWT_CLOCK_TOLERANCE_S: '5',
      // This suite sends many bad tokens from one address on purpose.
      RATE_LIMIT_AUTH_FAILURES: '0',
    });
  });

  afterAll(async () => {
    await testApp.close();
    await issuer.stop();
  });

  beforeEach(async () => {
    // Other suites share the test database; this one's fresh ids must be free.
    await truncateAll(testApp.db);
  });

  it('accepts a valid token carrying plants:write in `scope`', async () => {
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 200 });
  });

  it('accepts the scope given as an `scp` list', async () => {
    const token = await issuer.token({ scope: undefined, scp: ['plants:write'] });

    await expect(create(testApp, token)).resolves.toMatchObject({ status: 200 });
  });

  it('still accepts the static tokens alongside', async () => {
    await expect(create(testApp, TEST_TOKEN)).resolves.toMatchObject({ status: 200 });
  });

  it('allows a few seconds of clock skew, no more', async () => {
    const justExpired = await issuer.token({ exp: now() - 2 });
    const expired = await issuer.token({ exp: now() - 60 });

    await expect(create(testApp, justExpired)).resolves.toMatchObject({ status: 200 });
    await expect(create(testApp, expired)).resolves.toStrictEqual({
      status: 401,
      challenge: INVALID_TOKEN,
      retryAfter: null,
      body: { error: 401, message: 'The bearer token is invalid or expired' },
    });
  });

  it.each([
    ['without exp', (issuer: JwtIssuer) => issuer.token({}, { expiresIn: false })],
    ['from another issuer', (issuer: JwtIssuer) => issuer.token({ iss: 'https://evil.test' })],
    ['for another audience', (issuer: JwtIssuer) => issuer.token({ aud: 'another-service' })],
    ['not yet valid', (issuer: JwtIssuer) => issuer.token({ nbf: now() + 600 })],
    [
      'signed with another key under the same kid',
      async (issuer: JwtIssuer) => {
        const { privateKey } = await generateKeyPair('RS256');
        return issuer.token({}, { key: privateKey });
      },
    ],
    [
      'signed with a key the set does not have',
      async (issuer: JwtIssuer) => {
        const { privateKey } = await generateKeyPair('RS256');
        return issuer.token({}, { key: privateKey, kid: 'unknown-key' });
      },
    ],
    [
      'with alg none',
      () => unsecuredToken({ iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: now() + 300, scope: 'plants:write' }),
    ],
    [
      'HS256-signed with the public key as the secret (algorithm confusion)',
      (issuer: JwtIssuer) =>
        new SignJWT({ scope: 'plants:write' })
          .setProtectedHeader({ alg: 'HS256', kid: issuer.kid })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(issuer.publicKeyPem)),
    ],
    [
      'with a tampered payload',
      async (issuer: JwtIssuer) => {
        const [header, , signature] = (await issuer.token()).split('.');
        const payload = Buffer.from(
          JSON.stringify({
            iss: ISSUER,
            aud: AUDIENCE,
            exp: now() + 300,
            scope: 'plants:write',
            sub: 'admin',
          }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
    ],
  ])('refuses a token %s with 401 invalid_token', async (_case, makeToken) => {
    const token = await makeToken(issuer);

    await expect(create(testApp, token)).resolves.toMatchObject({ status: 401, challenge: INVALID_TOKEN });
  });

  it('answers 403 insufficient_scope to a valid token without plants:write', async () => {
    const token = await issuer.token({ scope: 'plants:read' });

    await expect(create(testApp, token)).resolves.toStrictEqual({
      status: 403,
      challenge: 'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
      retryAfter: null,
      body: { error: 403, message: 'The bearer token lacks the plants:write scope' },
    });
  });
  it('lets plants:read read a plant but not PATCH or DELETE it: 403, nothing changed', async () => {
    const reader = await issuer.token({ scope: 'plants:read' });
    await request(testApp.server)
      .post('/plants')
      .set('Authorization', `Bearer ${TEST_TOKEN}`)
      .send({ id: 77, name: 'Fern' })
      .expect(200);

    const read = await request(testApp.server).get('/plants/77').set('Authorization', `Bearer ${reader}`);
    const patched = await request(testApp.server)
      .patch('/plants/77')
      .set('Authorization', `Bearer ${reader}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send('{"name":"Moss"}');
    const deleted = await request(testApp.server)
      .delete('/plants/77')
      .set('Authorization', `Bearer ${reader}`);
    const anonymous = await request(testApp.server).patch('/plants/77').send({ name: 'Moss' });

    expect(read.status).toBe(200);
    expect(patched.status).toBe(403);
    expect(patched.body).toStrictEqual({
      error: 403,
      message: 'The bearer token lacks the plants:write scope',
    });
    expect(deleted.status).toBe(403);
    expect(anonymous.status).toBe(401);
    await expect(
      request(testApp.server).get('/plants/77').set('Authorization', `Bearer ${reader}`),
    ).resolves.toMatchObject({ body: { id: 77, name: 'Fern' }, headers: { etag: '"1"' } });
  });
});

describe('JWT bearer tokens when the key set cannot be fetched', () => {
  let issuer: JwtIssuer;
  let testApp: TestApp;

  beforeAll(async () => {
    issuer = await JwtIssuer.start();
    // Nothing listens there: the key set is unreachable.
    const deadUrl = `http://127.0.0.1:${await freePort()}/.well-known/jwks.json`;
    testApp = await startTestApp({
      AUTH_JWKS_URL: deadUrl,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      AUTH_JWKS_TIMEOUT_MS: '1000',
    });
  });

  afterAll(async () => {
    await testApp.close();
    await issuer.stop();
  });

  beforeEach(async () => {
    // Other suites share the test database; this one's fresh ids must be free.
    await truncateAll(testApp.db);
  });

  it('answers 503 with Retry-After, within the fetch timeout, rather than calling the token bad', async () => {
    const started = Date.now();

    await expect(create(testApp, await issuer.token())).resolves.toMatchObject({
      status: 503,
      retryAfter: '1',
      body: { error: 503, message: "The token issuer's key set cannot be fetched; retry later" },
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('keeps accepting the static tokens meanwhile', async () => {
    await expect(create(testApp, TEST_TOKEN)).resolves.toMatchObject({ status: 200 });
  });
});

describe('JWT bearer tokens signed with a shared HS256 secret', () => {
  const secret = 'a-shared-secret-of-at-least-32-characters';
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ AUTH_JWT_SECRET: secret, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });
  });

  afterAll(async () => {
    await testApp.close();
  });

  beforeEach(async () => {
    // Other suites share the test database; this one's fresh ids must be free.
    await truncateAll(testApp.db);
  });

  const hs256 = (key: string) =>
    new SignJWT({ scope: 'plants:write' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(key));

  it('accepts a token signed with the secret', async () => {
    await expect(create(testApp, await hs256(secret))).resolves.toMatchObject({ status: 200 });
  });

  it('refuses one signed with another secret, and an RS256 one', async () => {
    const issuer = await JwtIssuer.start();
    try {
      await expect(create(testApp, await hs256(`${secret}-not`))).resolves.toMatchObject({ status: 401 });
      await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 401 });
    } finally {
      await issuer.stop();
    }
  });
});

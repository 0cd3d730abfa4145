import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';

import { createPlantAs } from './support/factories.js';
import { TEST_TOKEN } from './support/environment.js';
import { AUDIENCE, ISSUER, JwtIssuer, UNREACHABLE, unsecuredToken } from './support/jwt-issuer.js';
import { freePort } from './support/service-process.js';
import { type TestApp, type TestEnv, type TestServer, useTestApp } from './support/app.js';

const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
/** The whole answer to a token past its time. */
const EXPIRED = {
  status: 401,
  challenge: INVALID_TOKEN,
  retryAfter: null,
  body: { error: 401, message: 'The bearer token is invalid or expired' },
};
const now = () => Math.floor(Date.now() / 1000);

/** A create through the running service with this token. */
function create(testApp: TestApp, token: string) {
  return createPlantAs(testApp.url, token);
}

/**
 * The application of a describe block, taking the tokens `issuer` signs (it
 * starts first, then `servers`), with `env` added. Its limit on failed
 * authentications is off: these suites send many bad tokens from one address
 * on purpose.
 */
function useAppTrusting(
  issuer: JwtIssuer,
  env: TestEnv | (() => TestEnv) = {},
  servers: readonly TestServer[] = [],
): TestApp {
  return useTestApp(
    () => ({
      ...issuer.serviceEnv,
      RATE_LIMIT_AUTH_FAILURES: '0',
      ...(typeof env === 'function' ? env() : env),
    }),
    { servers: [issuer, ...servers] },
  );
}

describe('JWT bearer tokens, from a key set served on loopback', () => {
  const issuer = new JwtIssuer();
  const testApp = useAppTrusting(issuer, { AUTH_JWT_CLOCK_TOLERANCE_S: '5', AUTH_JWT_MAX_AGE: '1h' });

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
    await expect(create(testApp, expired)).resolves.toStrictEqual(EXPIRED);
  });

  it('accepts a typ of JWT or at+jwt, in any letter case, with application/ or not, or none', async () => {
    for (const typ of ['JWT', 'at+jwt', 'application/at+jwt', 'AT+JWT', undefined]) {
      await expect(create(testApp, await issuer.token({}, { header: { typ } }))).resolves.toMatchObject({
        status: 200,
      });
    }
  });

  it('allows an iat a few seconds ahead, and an age up to AUTH_JWT_MAX_AGE, no more', async () => {
    const ahead = await issuer.token({ iat: now() + 3 });
    const fiftyMinutes = await issuer.token({ iat: now() - 50 * 60 });
    const twoHours = await issuer.token({ iat: now() - 2 * 60 * 60 });

    await expect(create(testApp, ahead)).resolves.toMatchObject({ status: 200 });
    await expect(create(testApp, fiftyMinutes)).resolves.toMatchObject({ status: 200 });
    await expect(create(testApp, twoHours)).resolves.toStrictEqual(EXPIRED);
  });

  it.each([
    ['without exp', (issuer: JwtIssuer) => issuer.token({}, { expiresIn: false })],
    [
      'without sub (tokens without one would share one budget)',
      (issuer: JwtIssuer) => issuer.token({ sub: undefined }),
    ],
    ['with an empty sub', (issuer: JwtIssuer) => issuer.token({ sub: '' })],
    [
      'with a number for sub (it would be the principal of the string "123")',
      (issuer: JwtIssuer) => issuer.token({ sub: 123 }),
    ],
    [
      'with an object for sub (every such token would be one principal, jwt:[object Object])',
      (issuer: JwtIssuer) => issuer.token({ sub: { id: 'client-42' } }),
    ],
    ['without iat (its age cannot be told)', (issuer: JwtIssuer) => issuer.token({ iat: undefined })],
    ['issued a day in the future', (issuer: JwtIssuer) => issuer.token({ iat: now() + 86_400 })],
    [
      'issued longer ago than AUTH_JWT_MAX_AGE, expiring in 10^15',
      (issuer: JwtIssuer) => issuer.token({ iat: now() - 2 * 60 * 60, exp: 10 ** 15 }),
    ],
    [
      'marking b64 critical (crit: ["b64"]), which jose understands and this service does not',
      (issuer: JwtIssuer) => issuer.token({}, { header: { crit: ['b64'], b64: true } }),
    ],
    ['of typ dpop+jwt', (issuer: JwtIssuer) => issuer.token({}, { header: { typ: 'dpop+jwt' } })],
    ['of typ JWE', (issuer: JwtIssuer) => issuer.token({}, { header: { typ: 'JWE' } })],
    [
      'carrying its own key in the header (jwk)',
      async (issuer: JwtIssuer) => {
        const { publicKey, privateKey } = await generateKeyPair('RS256');
        return issuer.token(
          {},
          { key: privateKey, kid: 'carried', header: { jwk: await exportJWK(publicKey) } },
        );
      },
    ],
    [
      'marking an extension critical (crit)',
      (issuer: JwtIssuer) => issuer.token({}, { header: { crit: ['x-plant-store'], 'x-plant-store': true } }),
    ],
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

  it.each(['jku', 'x5u'])(
    'refuses a token whose header points at another key set (%s), and never fetches it',
    async (parameter) => {
      const { publicKey, privateKey } = await generateKeyPair('RS256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'elsewhere', alg: 'RS256' };
      let fetched = 0;
      const elsewhere = createServer((_request, response) => {
        fetched++;
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = elsewhere.address() as AddressInfo;
        const token = await issuer.token(
          {},
          {
            key: privateKey,
            kid: 'elsewhere',
            header: { [parameter]: `http://127.0.0.1:${port}/jwks.json` },
          },
        );

        await expect(create(testApp, token)).resolves.toMatchObject({
          status: 401,
          challenge: INVALID_TOKEN,
        });
        expect(fetched).toBe(0);
      } finally {
        await new Promise((resolve) => elsewhere.close(resolve));
      }
    },
  );

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
  const issuer = new JwtIssuer();
  const testApp = useTestApp(
    async () => ({
      // Nothing listens there: the key set is unreachable.
      AUTH_JWKS_URL: `http://127.0.0.1:${await freePort()}/.well-known/jwks.json`,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      AUTH_JWKS_TIMEOUT_MS: '1000',
    }),
    { servers: [issuer] },
  );

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

describe('JWT bearer tokens while every fetch of the key set fails', () => {
  const issuer = new JwtIssuer();
  issuer.answer = (_request, response) => response.writeHead(500).end();
  const testApp = useAppTrusting(issuer);

  it('asks the issuer after 1 s, then 2 s, 4 s…, and writes one log line per fetch, none per request', async () => {
    const token = await issuer.token();
    const linesBefore = testApp.logs.entries().length;
    const statuses = new Set<number>();
    let requests = 0;

    // A request every 100 ms for 4.5 s: fetches at 0, 1 and 3 s, the next not before 7 s.
    const started = Date.now();
    while (Date.now() - started < 4_500) {
      const { status } = await request(testApp.server).get('/plants').set('Authorization', `Bearer ${token}`);
      statuses.add(status);
      requests++;
      await sleep(100);
    }

    expect(statuses).toStrictEqual(new Set([503]));
    expect(requests).toBeGreaterThan(10);
    expect(issuer.requests).toBe(3);
    const lines = testApp.logs.entries().slice(linesBefore);
    expect(lines.map(({ context, msg }) => ({ context, msg }))).toStrictEqual(
      Array(3).fill({
        context: 'Auth',
        msg: expect.stringMatching(
          /^The token issuer's key set could not be fetched \(the issuer answered 500\)/,
        ),
      }),
    );
    expect(testApp.logs.text()).not.toContain(token);
  });
});

describe('JWT bearer tokens when the issuer goes away or misbehaves', () => {
  const issuer = new JwtIssuer();
  const testApp = useAppTrusting(issuer, { AUTH_JWKS_CACHE_MS: '1000', AUTH_JWKS_TIMEOUT_MS: '1000' });

  beforeEach(() => {
    issuer.answer = undefined;
  });

  it('lets a flood of unknown kids reach the issuer once per cooldown at most', async () => {
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 200 });
    const before = issuer.requests;

    const flood = await Promise.all(
      Array.from({ length: 30 }, async (_, index) =>
        create(testApp, await issuer.token({}, { kid: `random-${index}` })),
      ),
    );

    expect(flood.map(({ status }) => status)).toStrictEqual(Array(30).fill(401));
    expect(issuer.requests - before).toBeLessThanOrEqual(1);
  });

  it('keeps serving the last good key set, without waiting, while the issuer is down', async () => {
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 200 });

    issuer.answer = UNREACHABLE;
    // Past the key set's cache age: jose alone would fetch, fail and answer 503.
    await sleep(1_100);
    for (let request = 0; request < 3; request++) {
      const started = Date.now();
      await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 200 });
      expect(Date.now() - started).toBeLessThan(500);
    }
  });
});

describe('JWT bearer tokens from a key set address that redirects or sends too much', () => {
  const issuer = new JwtIssuer();
  let answer: 'redirect' | 'oversized' | 'set';
  let elsewhere = 0;
  const mirror = createServer((request, response) => {
    if (request.url === '/elsewhere') {
      elsewhere++;
      response.writeHead(404).end();
    } else if (answer === 'redirect') {
      response.writeHead(302, { Location: '/elsewhere' }).end();
    } else if (answer === 'oversized') {
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(`{"keys":[],"pad":"${'x'.repeat(200_000)}"}`);
    } else {
      void fetch(issuer.jwksUrl).then(async (set) => response.writeHead(200).end(await set.text()));
    }
  });

  const testApp = useAppTrusting(
    issuer,
    () => ({
      AUTH_JWKS_URL: `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/.well-known/jwks.json`,
    }),
    [
      {
        start: () => new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve)),
        stop: () => new Promise((resolve) => mirror.close(resolve)),
      },
    ],
  );

  it('follows no redirect and reads no oversized set: 503, until the set is served as it should be', async () => {
    const unavailable = { status: 503, body: { error: 503 } };

    answer = 'redirect';
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject(unavailable);
    expect(elsewhere).toBe(0);

    // A failed fetch is not tried again for a second, a second failure in a row for two.
    await sleep(1_100);
    answer = 'oversized';
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject(unavailable);

    await sleep(2_100);
    answer = 'set';
    await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 200 });
  });
});

describe('JWT bearer tokens signed with a shared HS256 secret', () => {
  const secret = 'a-shared-secret-of-at-least-32-characters';
  const testApp = useTestApp({ AUTH_JWT_SECRET: secret, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });

  const hs256 = (key: string) =>
    new SignJWT({ scope: 'plants:write', sub: 'client-7' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(key));

  it('accepts a token signed with the secret', async () => {
    await expect(create(testApp, await hs256(secret))).resolves.toMatchObject({ status: 200 });
  });

  it('refuses one signed with another secret, and an RS256 one', async () => {
    const issuer = new JwtIssuer();
    await issuer.start();
    try {
      await expect(create(testApp, await hs256(`${secret}-not`))).resolves.toMatchObject({ status: 401 });
      await expect(create(testApp, await issuer.token())).resolves.toMatchObject({ status: 401 });
    } finally {
      await issuer.stop();
    }
  });
});

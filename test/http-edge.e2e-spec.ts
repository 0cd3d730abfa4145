import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { rawRequest } from './support/raw-request.js';
import { useTestApp } from './support/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the HTTP edge: security headers, request ids, CORS off by default', () => {
  const testApp = useTestApp();

  it('sends security headers, and no X-Powered-By, on answers and on errors alike', async () => {
    for (const response of [
      await request(testApp.server).post('/plants').set(AUTH).send(newPlant()),
      await request(testApp.server).post('/plants').send(newPlant()),
      await request(testApp.server).get('/nowhere'),
    ]) {
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'strict-transport-security': expect.stringContaining('max-age='),
        'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      });
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('serves the Swagger UI under a policy that lets it run: scripts and styles from this origin', async () => {
    const page = await request(testApp.server).get('/docs/');
    const policy = page.headers['content-security-policy'];

    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('upgrade-insecure-requests');
    expect(page.text).toContain('<script src="./swagger-ui-init.js">');
  });

  it('echoes an acceptable X-Request-Id, and replaces an unacceptable one with a UUID', async () => {
    const given = randomUUID();
    const echoed = await request(testApp.server).get('/health/live').set('X-Request-Id', given);
    expect(echoed.headers['x-request-id']).toBe(given);

    for (const bad of ['x'.repeat(200), 'has spaces', 'semi;colon', '']) {
      const replaced = await request(testApp.server).get('/health/live').set('X-Request-Id', bad);
      expect(replaced.headers['x-request-id']).toMatch(UUID);
    }
    const generated = await request(testApp.server).get('/health/live');
    expect(generated.headers['x-request-id']).toMatch(UUID);
  });

  it('answers 404 or 405 for a path or method that does not exist, whatever the body', async () => {
    const broken = { ...AUTH, 'Content-Type': 'application/json' };

    const nowhere = await rawRequest(testApp.url, { path: '/nowhere', headers: broken, body: '{"id": 1,' });
    expect(nowhere).toMatchObject({ status: 404, json: { error: 404, message: 'Cannot POST /nowhere' } });

    const wrongMethod = await rawRequest(testApp.url, { method: 'PUT', headers: broken, body: '{"id": 1,' });
    expect(wrongMethod).toMatchObject({ status: 405, json: { error: 405 } });

    const tooLarge = await rawRequest(testApp.url, {
      path: '/nowhere',
      headers: broken,
      body: `{"name": "${'x'.repeat(20_000)}"}`,
    });
    expect(tooLarge.status).toBe(404);
    expect(tooLarge.headers.connection).toBe('close');

    // On a route that exists, the body's own failure answers, before the token is looked at.
    const onRoute = await rawRequest(testApp.url, {
      headers: { 'Content-Type': 'application/json' },
      body: '{"id": 1,',
    });
    expect(onRoute.status).toBe(400);
  });

  it('serves a path in its own letter case only: /PLANTS, /DOCS and /HEALTH/LIVE are not found', async () => {
    for (const [method, path] of [
      ['GET', '/PLANTS'],
      ['POST', '/Plants'],
      ['PUT', '/PLANTS'],
      ['GET', '/plants/1/'.toUpperCase()],
      ['GET', '/DOCS/'],
      ['GET', '/OPENAPI.JSON'],
      ['GET', '/HEALTH/LIVE'],
      ['GET', '/Health/Ready'],
    ] as const) {
      const response = await rawRequest(testApp.url, {
        method,
        path,
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: method === 'GET' ? undefined : '{"id": 1,',
      });

      expect({ path, status: response.status, json: response.json }).toStrictEqual({
        path,
        status: 404,
        json: { error: 404, message: `Cannot ${method} ${path}` },
      });
      // The API's policy, not the Swagger UI's.
      expect(response.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    }
    await expect(request(testApp.server).get('/health/live')).resolves.toMatchObject({ status: 200 });
  });

  it('answers no cross-origin request unless CORS_ORIGINS allows it', async () => {
    const preflight = await request(testApp.server)
      .options('/plants')
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'POST');
    const simple = await request(testApp.server).get('/health/live').set('Origin', 'https://app.example');

    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Expect: 100-continue', () => {
  const testApp = useTestApp();

  /** Sends the head alone, then the body once the service says `100 Continue`; answers all it read. */
  function expectContinue(contentLength: number, body: string): Promise<string> {
    const { port } = new URL(testApp.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /plants HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
            `Authorization: ${AUTH.Authorization}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${contentLength}\r\nExpect: 100-continue\r\n\r\n`,
        );
      });
      let received = '';
      let sent = false;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !sent) {
          sent = true;
          socket.write(body);
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
    });
  }

  it('asks for a body within the limit, and answers it', async () => {
    const body = JSON.stringify(newPlant());
    const answer = await expectContinue(Buffer.byteLength(body), body);

    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  });

  it('answers 413 to a body over the limit at once, without asking for it', async () => {
    const answer = await expectContinue(10_000_000_000, '');

    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).not.toContain('100 Continue');
    expect(answer).toContain('{"error":413,"message":"Request body is larger than 16384 bytes"}');
  });
});

describe('HTTP server timeouts', () => {
  const testApp = useTestApp({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });

  it('cuts off a client that trickles its headers (408, connection closed)', async () => {
    const { hostname, port } = new URL(testApp.url);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    let received = '';
    socket.write('POST /plants HTTP/1.1\r\nHost: plant-store\r\n');
    const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
    socket.on('data', (chunk) => {
      received += chunk.toString();
      clearInterval(drip);
    });
    // A line dripped after the server has closed the connection is answered with a reset: that is
    // the connection being cut off too, so an error here is no failure (events.once would reject).
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.once('close', resolve));

    try {
      // Bounded: a server that never cuts the client off fails the test, rather than dripping on after it.
      await Promise.race([closed, sleep(5_000, undefined, { ref: false })]);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }

    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('CORS, when CORS_ORIGINS lists origins', () => {
  const testApp = useTestApp({ CORS_ORIGINS: 'https://app.example, https://admin.example' });

  it('answers a preflight from a listed origin, with the headers a client needs', async () => {
    const preflight = await request(testApp.server)
      .options('/plants')
      .set('Origin', 'https://admin.example')
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization,content-type,if-match');

    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'https://admin.example',
      'access-control-allow-headers':
        'Authorization,Content-Type,X-Request-Id,If-Match,If-None-Match,If-Modified-Since,If-Unmodified-Since,Prefer',
      'access-control-allow-methods': 'GET,POST,PATCH,DELETE',
    });
  });

  it('exposes the headers a browser client reads, and ignores other origins', async () => {
    const allowed = await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .set('Origin', 'https://app.example')
      .send(newPlant());
    const other = await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .set('Origin', 'https://evil.example')
      .send(newPlant());

    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(allowed.headers['access-control-expose-headers']).toContain('X-Request-Id');
    expect(allowed.headers['access-control-expose-headers']).toContain('ETag');
    expect(allowed.headers['access-control-expose-headers']).toContain('Last-Modified');
    expect(allowed.headers['access-control-expose-headers']).toContain('RateLimit');
    // A list's count (Prefer: count=exact).
    expect(allowed.headers['access-control-expose-headers']).toContain('Content-Range');
    expect(allowed.headers['access-control-expose-headers']).toContain('Preference-Applied');
    expect(allowed.headers['ratelimit']).toMatch(/^"token";r=\d+;t=\d+$/);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

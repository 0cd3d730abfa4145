import { setTimeout as sleep } from 'node:timers/promises';

import { jest } from '@jest/globals';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { READINESS_CACHE_MS } from '../src/core/health/database.health.js';

import { AUTH, newPlant } from './support/factories.js';
import { TEST_TOKEN, TEST_TOKEN_ACTOR } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { JwtIssuer } from './support/jwt-issuer.js';
import { startTestApp, useTestApp } from './support/app.js';
import { MetricsServer } from '../src/core/metrics/metrics-server.js';

/** The value of one sample in a Prometheus text exposition, or undefined when absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('health, logs and metrics', () => {
  const issuer = new JwtIssuer();
  // The most verbose level there is: whatever is logged, secrets must not be.
  const testApp = useTestApp(() => ({ LOG_LEVEL: 'trace', ...issuer.serviceEnv }), { servers: [issuer] });

  /** Creates a plant, its request id `requestId`, and waits until the application has logged the request. */
  async function createLogged(requestId: string): Promise<void> {
    await request(testApp.server).post('/plants').set(AUTH).set('X-Request-Id', requestId).send(newPlant());
    await eventually(() => testApp.logs.text().includes(requestId));
  }

  it('reports liveness, and readiness with a database ping, without a token', async () => {
    const live = await request(testApp.server).get('/health/live');
    const ready = await request(testApp.server).get('/health/ready');

    expect(live.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('answers readiness checks of the same second with one database ping', async () => {
    // The pool itself, watched rather than replaced: the pings still reach PostgreSQL.
    const query = jest.spyOn(testApp.app.get(DataSource), 'query');
    try {
      await sleep(READINESS_CACHE_MS);
      const checks = await Promise.all(
        Array.from({ length: 20 }, () => request(testApp.server).get('/health/ready')),
      );
      for (let check = 0; check < 10; check++) {
        checks.push(await request(testApp.server).get('/health/ready'));
      }
      const pings = () => query.mock.calls.filter(([sql]) => sql === 'SELECT 1').length;

      expect(checks.map(({ status }) => status)).toStrictEqual(Array(30).fill(200));
      expect(pings()).toBeLessThanOrEqual(2);

      await sleep(READINESS_CACHE_MS);
      await request(testApp.server).get('/health/ready').expect(200);
      expect(pings()).toBeGreaterThanOrEqual(2);
    } finally {
      query.mockRestore();
    }
  });

  it('logs one JSON line per request: method, route, status, duration and request id', async () => {
    await createLogged('log-line-check-1');

    const line = testApp.logs
      .text()
      .split('\n')
      .find((candidate) => candidate.includes('"reqId":"log-line-check-1"'));
    expect(JSON.parse(line!)).toMatchObject({
      level: 'info',
      msg: 'request completed',
      reqId: 'log-line-check-1',
      principal: TEST_TOKEN_ACTOR,
      method: 'POST',
      route: '/plants',
      status: 200,
      durationMs: expect.any(Number),
    });
  });

  it('never logs a token, an Authorization header or a request body', async () => {
    const jwt = await issuer.token();
    const secretName = 'body-content-that-must-not-be-logged';
    await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .send(newPlant({ name: secretName }));
    await request(testApp.server)
      .post('/plants')
      .set('Authorization', `Bearer ${jwt}`)
      .send(newPlant({ tag: secretName }));
    await request(testApp.server)
      .post('/plants')
      .set('Authorization', 'Bearer wrong-token-0123456789')
      .send(newPlant());
    await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send(`{"name": "${secretName}"`);
    await createLogged('secrets-check-last');

    const log = testApp.logs.text();
    for (const secret of [TEST_TOKEN, jwt, jwt.split('.')[2], 'wrong-token-0123456789', secretName]) {
      expect(log).not.toContain(secret);
    }
    expect(log.toLowerCase()).not.toContain('authorization');
  });

  it('exposes Prometheus metrics: requests by route and status, durations, the pool, plants created, the process', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send(newPlant());
    await request(testApp.server).post('/plants').set(AUTH).send({});

    const response = await request(testApp.server).get('/metrics');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const exposition = response.text;
    expect(
      sample(exposition, 'http_requests_total{method="POST",route="/plants",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(exposition, 'http_requests_total{method="POST",route="/plants",status="400"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(exposition, 'http_request_duration_seconds_count{method="POST",route="/plants",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(exposition, 'plants_created_total')).toBeGreaterThanOrEqual(1);
    const pool = (state: string) =>
      sample(exposition, `db_pool_connections{pool="primary",state="${state}"}`) ?? Number.NaN;
    // The requests above opened at least one connection, now back in the pool.
    expect(pool('in_use') + pool('idle')).toBeGreaterThanOrEqual(1);
    expect(pool('waiting')).toBe(0);
    expect(exposition).toContain('process_resident_memory_bytes');
    expect(exposition).toContain('nodejs_eventloop_lag_seconds');
  });
});

describe('metrics switched off', () => {
  const testApp = useTestApp({ METRICS_ENABLED: 'false' });

  it('has no /metrics route', async () => {
    const response = await request(testApp.server).get('/metrics');

    expect(response.status).toBe(404);
    expect(response.body).toStrictEqual({ error: 404, message: 'Cannot GET /metrics' });
  });
});

describe('metrics on a port of their own (METRICS_PORT)', () => {
  const testApp = useTestApp({ METRICS_PORT: '0' });
  let metricsUrl: string;

  beforeAll(() => {
    const address = testApp.app.get(MetricsServer).address();
    metricsUrl = `http://127.0.0.1:${address!.port}`;
  });

  it('serves /metrics there, with what the API counted, and nothing else', async () => {
    await request(testApp.server).get('/health/live').expect(200);

    const scraped = await fetch(`${metricsUrl}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await scraped.text()).toMatch(/^http_requests_total\{.*route="\/health\/live".*\} \d+$/m);

    const elsewhere = await fetch(`${metricsUrl}/plants`);
    expect(elsewhere.status).toBe(404);
    await expect(elsewhere.json()).resolves.toStrictEqual({ error: 404, message: 'Cannot GET /plants' });
  });

  it('answers 404 for /metrics on the API’s port, where an ingress could expose it', async () => {
    const response = await request(testApp.server).get('/metrics');

    expect(response.status).toBe(404);
    expect(response.body).toStrictEqual({ error: 404, message: 'Cannot GET /metrics' });
  });

  it('closes the port with the application', async () => {
    const other = await startTestApp({ METRICS_PORT: '0' });
    let port: number;
    try {
      ({ port } = other.app.get(MetricsServer).address()!);
    } finally {
      await other.close();
    }

    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});

describe('metrics in production', () => {
  const production = { NODE_ENV: 'production', LOG_LEVEL: 'info' };

  it('are not served on the API’s port without METRICS_PORT, and the start says so', async () => {
    const testApp = await startTestApp(production);
    try {
      const response = await request(testApp.server).get('/metrics');

      expect(response.status).toBe(404);
      expect(response.body).toStrictEqual({ error: 404, message: 'Cannot GET /metrics' });
      expect(testApp.app.get(MetricsServer).address()).toBeUndefined();
      const warning = testApp.logs
        .entries()
        .find((entry) => String(entry.msg).startsWith('Metrics are not served'));
      expect(warning).toMatchObject({ level: 'warn', context: 'Metrics' });
      expect(String(warning?.msg)).toContain('set METRICS_PORT, or METRICS_ON_API_PORT=true');
    } finally {
      await testApp.close();
    }
  });

  it('are served on METRICS_PORT, and on the API’s port only when the operator asks', async () => {
    const [onTheirPort, onTheApiPort] = [
      await startTestApp({ ...production, METRICS_PORT: '0' }),
      await startTestApp({ ...production, METRICS_ON_API_PORT: 'true' }),
    ];
    try {
      const { port } = onTheirPort.app.get(MetricsServer).address()!;
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      await request(onTheirPort.server).get('/metrics').expect(404);

      const response = await request(onTheApiPort.server).get('/metrics').expect(200);
      expect(response.text).toContain('process_resident_memory_bytes');
      expect(onTheApiPort.logs.text()).not.toContain('Metrics are not served');
    } finally {
      await Promise.all([onTheirPort.close(), onTheApiPort.close()]);
    }
  });
});

describe('the documentation switched off (DOCS_ENABLED=false)', () => {
  const testApp = useTestApp({ DOCS_ENABLED: 'false' });

  it.each(['/docs', '/docs/', '/openapi.json', '/openapi.yaml'])('answers 404 for %s', async (path) => {
    const response = await request(testApp.server).get(path);

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 404 });
  });

  it('still serves the API', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send(newPlant()).expect(200);
  });
});

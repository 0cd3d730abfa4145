import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { plantRows, truncateAll } from '../support/database.js';
import { TEST_TOKEN } from '../support/environment.js';
import { runCreateLoad } from '../support/load.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/** A create whose body arrives in two halves, `gapMs` apart: a request still in flight when the signal comes. */
function slowCreate(url: string, id: number, gapMs: number): Promise<number> {
  const body = JSON.stringify({ id, name: 'Slow plant' });
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname,
        port,
        path: '/plants',
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TEST_TOKEN}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.write(body.slice(0, 10));
    setTimeout(() => outgoing.end(body.slice(10)), gapMs);
  });
}

describe('graceful shutdown (the compiled service, as a process)', () => {
  let service: ServiceProcess;
  let db: pg.Pool;

  beforeAll(async () => {
    service = await startService({
      NODE_ENV: 'test',
      AUTH_TOKENS: TEST_TOKEN,
      DATABASE_URL: process.env.DATABASE_URL,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    await truncateAll(db);
  });

  afterAll(async () => {
    await service.stop('SIGKILL');
    await db.end();
  });

  it('on SIGTERM under load: drains in-flight requests, keeps every acknowledged plant, exits 0', async () => {
    const signalled = sleep(1_500);
    const load = runCreateLoad({
      url: service.url,
      workers: 8,
      until: signalled.then(() => sleep(1_000)),
      firstId: 1,
    });

    await sleep(1_400);
    const inFlight = slowCreate(service.url, 999_999, 800);
    await sleep(100);
    const exitCode = service.stop('SIGTERM');

    // A connection opened after the signal is refused: the listener is closed.
    await sleep(100);
    const late = await fetch(`${service.url}/health/live`).then(
      (response) => response.status,
      (error: { cause?: { code?: string } }) => error.cause?.code,
    );

    const results = await load;
    await expect(inFlight).resolves.toBe(200);
    await expect(exitCode).resolves.toBe(0);
    expect(late).toBe('ECONNREFUSED');

    const acknowledged = results.filter((result) => result.status === 200);
    const stored = new Map((await plantRows(db)).map((row) => [row.id, row.name]));
    process.stdout.write(
      `\n  Shutdown test: ${results.length} creates sent, ${acknowledged.length} acknowledged, ` +
        `${acknowledged.filter((result) => stored.get(String(result.id)) === result.name).length} found; exit code 0\n`,
    );
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const result of acknowledged) {
      expect(stored.get(String(result.id))).toBe(result.name);
    }
    expect(stored.get('999999')).toBe('Slow plant');
    // Only answers from the service, or refusals once it stopped listening: no request cut off with a 5xx.
    expect(results.every((result) => result.status === 200 || typeof result.status === 'string')).toBe(true);
    expect(service.output()).toContain('SIGTERM received: draining in-flight requests');
    expect(service.output()).toContain('Shut down cleanly');
  });
});

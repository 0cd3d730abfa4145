import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { EmbeddedPostgres } from '../../src/core/database/embedded-postgres.js';
import { closeAll } from '../support/cleanup.js';
import { TEST_TOKEN, TEST_TOKEN_ACTOR } from '../support/environment.js';
import { eventually } from '../support/eventually.js';
import { runCreateLoad } from '../support/load.js';
import { failedStart, freePort, startService, type ServiceProcess } from '../support/service-process.js';

const DATABASE = 'plant_store_faults_test';

/**
 * A real PostgreSQL of the test's own, durable (fsync and synchronous commit
 * on, as in production), that the test crashes and restarts on the same port.
 */
async function startPostgres(dataDir: string, port: number): Promise<EmbeddedPostgres> {
  return EmbeddedPostgres.start({ dataDir, database: DATABASE, port });
}

/** Freezes (SIGSTOP) or thaws (SIGCONT) every process of the cluster: a database that hangs rather than refuses. */
async function signalCluster(dataDir: string, signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
  const postmaster = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);
  for (const pid of [postmaster, ...children]) {
    process.kill(pid, signal);
  }
}

describe('database faults, against the compiled service', () => {
  let workDir: string;
  let port: number;
  let postgres: EmbeddedPostgres;
  let service: ServiceProcess;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plant-store-faults-'));
    await chmod(workDir, 0o755);
    port = await freePort();
    postgres = await startPostgres(join(workDir, 'pg'), port);
  });

  afterAll(async () => {
    await closeAll(
      () => service?.stop('SIGKILL'),
      () => postgres?.stop().catch(() => undefined),
      () => rm(workDir, { recursive: true, force: true }),
    );
  });

  it('answers 503 while PostgreSQL is down, loses no acknowledged plant, and recovers by itself', async () => {
    service = await startService({
      NODE_ENV: 'test',
      AUTH_TOKENS: TEST_TOKEN,
      DATABASE_URL: postgres.url,
      LOG_LEVEL: 'warn',
    });

    let restartedAt = 0;
    const scenario = (async () => {
      await sleep(2_000);
      await postgres.stop('immediate');
      const killedAt = Date.now();
      await sleep(2_000);
      postgres = await startPostgres(join(workDir, 'pg'), port);
      restartedAt = Date.now();
      await sleep(5_000);
      return killedAt;
    })();
    const results = await runCreateLoad({ url: service.url, workers: 8, until: scenario, firstId: 1 });
    const killedAt = await scenario;

    const statuses = new Set(results.map((result) => result.status));
    const acknowledged = results.filter((result) => result.status === 200);
    const unavailable = results.filter((result) => result.status === 503);
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query<{ id: string; name: string; tag: string | null }>(
      'SELECT id::text, name, tag FROM plants WHERE id = ANY ($1::bigint[])',
      [acknowledged.map((result) => String(result.id))],
    );
    await client.end();
    const stored = new Map(rows.map((row) => [Number(row.id), row]));
    const firstSuccessAfterRestart = acknowledged.find((result) => result.startedAt >= restartedAt);
    const recoveryMs = firstSuccessAfterRestart
      ? firstSuccessAfterRestart.startedAt + firstSuccessAfterRestart.ms - restartedAt
      : Infinity;

    process.stdout.write(
      `\n  Fault test: ${results.length} creates sent, ${acknowledged.length} acknowledged (200), ` +
        `${stored.size} of them found in the table, ${unavailable.length} answered 503; ` +
        `PostgreSQL down ${restartedAt - killedAt} ms; first 200 ${recoveryMs} ms after its return; ` +
        `slowest 503 ${Math.max(0, ...unavailable.map((result) => result.ms))} ms\n`,
    );

    // Only successes and 503s: no 500, no hang (a client-side timeout would show as a status string).
    expect([...statuses].sort()).toStrictEqual([200, 503]);
    // The fault was real, and so was the work on both sides of it.
    expect(unavailable.length).toBeGreaterThan(0);
    expect(acknowledged.some((result) => result.startedAt < killedAt)).toBe(true);
    // Every 503 is the Error body with Retry-After, and came within 2 s.
    for (const result of unavailable) {
      expect(result.body).toStrictEqual({ error: 503, message: expect.any(String) });
      expect(result.retryAfter).toBe('1');
      expect(result.ms).toBeLessThan(2_000);
    }
    // Nothing acknowledged was lost, and it is stored exactly as sent.
    expect(stored.size).toBe(acknowledged.length);
    for (const result of acknowledged) {
      expect(stored.get(result.id)).toStrictEqual({ id: String(result.id), name: result.name, tag: null });
    }
    // The service never exited, and came back on its own within 5 s of the database.
    expect(service.process.exitCode).toBeNull();
    expect(recoveryMs).toBeLessThan(5_000);
  }, 60_000);

  it('keeps exactly one create event for every plant acknowledged at c32 while PostgreSQL crashes, and none for another', async () => {
    let restartedAt = 0;
    const scenario = (async () => {
      await sleep(2_000);
      await postgres.stop('immediate');
      await sleep(2_000);
      postgres = await startPostgres(join(workDir, 'pg'), port);
      restartedAt = Date.now();
      await sleep(4_000);
    })();
    const results = await runCreateLoad({
      url: service.url,
      workers: 32,
      until: scenario,
      firstId: 2_000_000,
    });
    await scenario;

    const acknowledged = results.filter((result) => result.status === 200).map((result) => String(result.id));
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows: stored } = await client.query<{ id: string }>(
      'SELECT id::text FROM plants WHERE id >= 2000000 ORDER BY id',
    );
    const { rows: events } = await client.query<{ id: string; creates: number }>(
      `SELECT resource_id AS id, count(*)::int AS creates FROM audit_events
       WHERE resource = 'plants' AND action = 'create' AND resource_id::bigint >= 2000000
       GROUP BY resource_id ORDER BY resource_id::bigint`,
    );
    await client.end();
    process.stdout.write(
      `\n  Audit crash test: ${results.length} creates sent at c32, ${acknowledged.length} acknowledged, ` +
        `${stored.length} stored, ${events.length} with a create event; the database back ${restartedAt > 0}\n`,
    );

    expect(acknowledged.length).toBeGreaterThan(0);
    expect(results.some((result) => result.status === 503)).toBe(true);
    // Every acknowledged plant is stored with exactly one create event, and every event has its plant.
    const storedIds = stored.map((row) => row.id);
    expect(storedIds).toEqual(expect.arrayContaining(acknowledged));
    expect(events).toStrictEqual(storedIds.map((id) => ({ id, creates: 1 })));
  }, 60_000);

  it('logs the 503 of a create that meets a stopped database as a warning carrying its request id', async () => {
    await postgres.stop('fast');
    try {
      const response = await fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TEST_TOKEN}`,
          'Content-Type': 'application/json',
          'X-Request-Id': 'create-meets-stopped-db',
        },
        body: JSON.stringify({ id: 4_000_000, name: 'Unlucky' }),
      });
      expect(response.status).toBe(503);

      await eventually(() => service.output().includes('"reqId":"create-meets-stopped-db"'));
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.includes('"reqId":"create-meets-stopped-db"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          context: 'HttpErrorFilter',
          reqId: 'create-meets-stopped-db',
          principal: TEST_TOKEN_ACTOR,
          msg: expect.stringMatching(/^POST \/plants answered 503: .*(ECONNREFUSED|terminat|Connection)/),
        }),
      );
    } finally {
      postgres = await startPostgres(join(workDir, 'pg'), port);
    }
  });

  it('answers 503 within 2 s, rather than hang, while PostgreSQL does not answer at all', async () => {
    let thawedAt = 0;
    const scenario = (async () => {
      await sleep(1_000);
      await signalCluster(join(workDir, 'pg'), 'SIGSTOP');
      await sleep(4_000);
      await signalCluster(join(workDir, 'pg'), 'SIGCONT');
      thawedAt = Date.now();
      await sleep(5_000);
    })();
    const results = await runCreateLoad({
      url: service.url,
      workers: 8,
      until: scenario,
      firstId: 1_000_000,
    });
    await scenario;

    const acknowledged = results.filter((result) => result.status === 200);
    const unavailable = results.filter((result) => result.status === 503);
    const firstSuccessAfterThaw = acknowledged.find((result) => result.startedAt >= thawedAt);
    const recoveryMs = firstSuccessAfterThaw
      ? firstSuccessAfterThaw.startedAt + firstSuccessAfterThaw.ms - thawedAt
      : Infinity;
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query<{ id: string }>(
      'SELECT id::text FROM plants WHERE id = ANY ($1::bigint[])',
      [acknowledged.map((result) => String(result.id))],
    );
    await client.end();
    process.stdout.write(
      `\n  Hang test: ${results.length} creates sent, ${acknowledged.length} acknowledged, ${rows.length} found, ` +
        `${unavailable.length} answered 503 (slowest ${Math.max(0, ...unavailable.map((result) => result.ms))} ms); ` +
        `first 200 ${recoveryMs} ms after the database answered again\n`,
    );

    expect([...new Set(results.map((result) => result.status))].sort()).toStrictEqual([200, 503]);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const result of unavailable) {
      expect(result.ms).toBeLessThan(2_000);
      expect(result.retryAfter).toBe('1');
    }
    expect(rows).toHaveLength(acknowledged.length);
    expect(service.process.exitCode).toBeNull();
    expect(recoveryMs).toBeLessThan(5_000);
  }, 60_000);

  it('cancels a statement that runs too long (statement_timeout): 503 within 2 s, nothing stored', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    await client.query(`
      CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$;
      CREATE TRIGGER stall BEFORE INSERT ON plants FOR EACH ROW EXECUTE FUNCTION stall();`);
    try {
      const started = Date.now();
      const response = await fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id: 5_000_000, name: 'Too slow' }),
      });

      expect(response.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      await client.query('DROP TRIGGER stall ON plants; DROP FUNCTION stall()');
    }
    const { rows } = await client.query('SELECT 1 FROM plants WHERE id = 5000000');
    await client.end();
    expect(rows).toStrictEqual([]);
  });

  it('waits for the database at start-up, with bounded and logged retries, then serves', async () => {
    await postgres.stop('fast');
    const starting = startService(
      {
        NODE_ENV: 'test',
        AUTH_TOKENS: TEST_TOKEN,
        DATABASE_URL: postgres.url,
        LOG_LEVEL: 'info',
        DATABASE_CONNECT_RETRIES: '20',
        DATABASE_CONNECT_RETRY_DELAY_MS: '250',
      },
      { timeoutMs: 30_000 },
    );
    await sleep(1_500);
    postgres = await startPostgres(join(workDir, 'pg'), port);

    const waited = await starting;
    try {
      expect(waited.output()).toMatch(/Unable to connect to the database. Retrying \(\d+\)/);
      const response = await fetch(`${waited.url}/health/ready`);
      expect(response.status).toBe(200);
    } finally {
      await waited.stop();
    }
  });

  it('exits non-zero with a clear message when the database never comes', async () => {
    await postgres.stop('fast');
    try {
      const { code, output } = await failedStart({
        NODE_ENV: 'test',
        AUTH_TOKENS: TEST_TOKEN,
        DATABASE_URL: postgres.url,
        DATABASE_CONNECT_RETRIES: '3',
        DATABASE_CONNECT_RETRY_DELAY_MS: '100',
      });

      expect(code).toBe(1);
      expect(output.match(/Unable to connect to the database. Retrying/g)).toHaveLength(3);
      expect(output).toContain(
        'Plant Store failed to start: the database could not be reached (connect ECONNREFUSED',
      );
    } finally {
      postgres = await startPostgres(join(workDir, 'pg'), port);
    }
  });
});

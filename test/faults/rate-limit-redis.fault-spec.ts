import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { closeAll } from '../support/cleanup.js';
import { truncateAll } from '../support/database.js';
import { TEST_TOKEN } from '../support/environment.js';
import { eventually } from '../support/eventually.js';
import { createPlantAs } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { describeWith, REDIS } from '../support/system-packages.js';

const OTHER_TOKEN = 'another-test-token-0123456789';
const REDIS_PASSWORD = 'redis-password-never-logged-4567';

/** The service's rate-limit log lines from `since` (an offset into its output) on. */
function rateLimitLines(service: ServiceProcess, since = 0): Array<{ level: string; msg: string }> {
  return service
    .output()
    .slice(since)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string; context?: string })
    .filter((entry) => entry.context === 'RateLimit');
}

async function metric(service: ServiceProcess, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const sample = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return sample ? Number(sample[1]) : undefined;
}

/** Creates one after the other; answers each one's status and the slowest answer's time. */
async function createsInTurn(service: ServiceProcess, token: string, count: number) {
  const statuses: number[] = [];
  let slowestMs = 0;
  for (let request = 0; request < count; request++) {
    const started = performance.now();
    statuses.push((await createPlantAs(service.url, token)).status);
    slowestMs = Math.max(slowestMs, performance.now() - started);
  }
  return { statuses, slowestMs };
}

describeWith([REDIS])('rate limits in Redis, against the compiled service, when Redis fails', () => {
  let redis: RedisServer;
  let service: ServiceProcess;

  beforeAll(async () => {
    redis = await startRedisServer({ password: REDIS_PASSWORD });
    // Other suites share the test database; this one's fresh ids must be free.
    const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    await truncateAll(db).finally(() => db.end());
  });

  afterAll(async () => {
    await closeAll(
      () => service?.stop('SIGKILL'),
      () => redis?.stop(),
    );
  });

  it('starts while Redis is down, counting in memory, and counts in Redis once it comes', async () => {
    await redis.stop();
    service = await startService({
      NODE_ENV: 'test',
      AUTH_TOKENS: `${TEST_TOKEN},${OTHER_TOKEN}`,
      DATABASE_URL: process.env.DATABASE_URL,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_TOKEN: '5',
      RATE_LIMIT_TOKEN_WINDOW_MS: '60000',
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: '100',
    });

    const inMemory = await createsInTurn(service, OTHER_TOKEN, 7);
    expect(inMemory.statuses).toStrictEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(inMemory.slowestMs).toBeLessThan(1_000);
    expect(rateLimitLines(service).map(({ level }) => level)).toStrictEqual(['warn']);
    await expect(metric(service, 'rate_limit_storage_up')).resolves.toBe(0);

    await redis.start();
    await eventually(() => rateLimitLines(service).some(({ msg }) => msg.includes(' is back: ')));
    const counted = await createsInTurn(service, OTHER_TOKEN, 6);
    expect(counted.statuses).toStrictEqual([200, 200, 200, 200, 200, 429]);
  });

  it('answers within the timeout while Redis hangs, counting in memory, and counts on where it left off once it thaws', async () => {
    await expect(createsInTurn(service, TEST_TOKEN, 2)).resolves.toMatchObject({ statuses: [200, 200] });
    const since = service.output().length;
    const errorsBefore = (await metric(service, 'rate_limit_storage_errors_total')) ?? 0;

    redis.signal('SIGSTOP');
    const inTurn = await createsInTurn(service, TEST_TOKEN, 10);
    const started = performance.now();
    const together = await Promise.all(
      Array.from({ length: 20 }, () => createPlantAs(service.url, TEST_TOKEN)),
    );
    const togetherMs = performance.now() - started;

    // The first five in this instance's memory are served, the rest refused, none held up.
    expect(inTurn.statuses).toStrictEqual([...Array(5).fill(200), ...Array(5).fill(429)]);
    expect(inTurn.slowestMs).toBeLessThan(1_000);
    expect(together.map(({ status }) => status)).toStrictEqual(Array(20).fill(429));
    expect(togetherMs).toBeLessThan(1_000);
    expect(await metric(service, 'rate_limit_storage_errors_total')).toBeGreaterThanOrEqual(
      errorsBefore + 30,
    );
    await expect(metric(service, 'rate_limit_storage_up')).resolves.toBe(0);
    // Log lines reach the output in blocks, at most 100 ms after they are written: wait past the last block.
    await eventually(() => rateLimitLines(service, since).length > 0);
    await sleep(250);
    expect(rateLimitLines(service, since)).toStrictEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('Command timed out') }),
    ]);

    redis.signal('SIGCONT');
    await eventually(() => rateLimitLines(service, since).some(({ msg }) => msg.includes(' is back: ')));
    await expect(metric(service, 'rate_limit_storage_up')).resolves.toBe(1);
    // Two were counted in Redis before it hung, and the hit in flight when it hung once it
    // thawed; none after that, when the counting had moved to memory: two more are allowed.
    const counted = await createsInTurn(service, TEST_TOKEN, 3);
    expect(counted.statuses).toStrictEqual([200, 200, 429]);
  });

  it('shuts down promptly while Redis hangs', async () => {
    redis.signal('SIGSTOP');
    await createPlantAs(service.url, OTHER_TOKEN);

    const started = performance.now();
    await expect(service.stop('SIGTERM')).resolves.toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(service.output()).not.toContain(REDIS_PASSWORD);
  });
});

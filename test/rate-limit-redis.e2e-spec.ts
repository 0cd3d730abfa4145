import { performance } from 'node:perf_hooks';

import { startTestApp, type TestApp } from './support/app.js';
import { truncateAll } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { createPlantAs } from './support/factories.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const OTHER_TOKEN = 'another-test-token-0123456789';
const REDIS_PASSWORD = 'redis-password-never-logged-0123';

/** The value of one sample of the application's metrics, by the sample's name. */
async function metric(testApp: TestApp, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${testApp.url}/metrics`)).text();
  const sample = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return sample ? Number(sample[1]) : undefined;
}

/** A create, with how long its answer took. */
async function timedCreate(testApp: TestApp, token = TEST_TOKEN) {
  const started = performance.now();
  const { status } = await createPlantAs(testApp.url, token);
  return { status, ms: performance.now() - started };
}

function rateLimitLines(testApp: TestApp, level: string) {
  return testApp.logs.entries().filter((entry) => entry.context === 'RateLimit' && entry.level === level);
}

describe('rate limits in Redis, shared by two instances', () => {
  let redis: RedisServer;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    redis = await startRedisServer({ password: REDIS_PASSWORD });
    const env = {
      AUTH_TOKENS: `${TEST_TOKEN},${OTHER_TOKEN}`,
      RATE_LIMIT_PER_TOKEN: '10',
      RATE_LIMIT_TOKEN_WINDOW_MS: '60000',
      RATE_LIMIT_AUTH_FAILURES: '3',
      RATE_LIMIT_AUTH_WINDOW_MS: '60000',
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
    };
    first = await startTestApp(env);
    second = await startTestApp(env);
  });

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await redis?.stop();
  });

  beforeEach(async () => {
    await truncateAll(first.db);
  });

  it('count a token’s requests together: the 11th of 10 is refused, whichever instance it reaches', async () => {
    for (let request = 1; request <= 10; request++) {
      const instance = request % 2 === 1 ? first : second;
      await expect(createPlantAs(instance.url, TEST_TOKEN)).resolves.toMatchObject({ status: 200 });
    }

    const refused = await createPlantAs(first.url, TEST_TOKEN);
    expect(refused).toMatchObject({ status: 429, body: { error: 429 } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect((refused.body as { message: string }).message).toMatch(
      /^Too many requests for this token; retry after \d+ s$/,
    );
    await expect(createPlantAs(second.url, TEST_TOKEN)).resolves.toMatchObject({ status: 429 });

    await expect(createPlantAs(second.url, OTHER_TOKEN)).resolves.toMatchObject({ status: 200 });
    await expect(metric(first, 'rate_limit_storage_up')).resolves.toBe(1);
    await expect(metric(first, 'rate_limit_storage_errors_total')).resolves.toBe(0);
  });

  it('count an address’s failed authentications together, and lock it out on both', async () => {
    for (const [attempt, instance] of [first, second, first].entries()) {
      await expect(createPlantAs(instance.url, `wrong-token-${attempt}-0123456789`)).resolves.toMatchObject({
        status: 401,
      });
    }

    const locked = await createPlantAs(second.url, 'wrong-token-3-0123456789');
    expect(locked).toMatchObject({ status: 429, body: { error: 429 } });
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect((locked.body as { message: string }).message).toMatch(
      /^Too many failed authentication attempts from this address; retry after \d+ s$/,
    );
    // The right token is refused too, on the instance that saw no failure since.
    await expect(createPlantAs(first.url, OTHER_TOKEN)).resolves.toMatchObject({ status: 429 });
  });

  it('name Redis in the log without its password', () => {
    const logged = first.logs.text() + second.logs.text();

    expect(logged).toContain(`Rate limits are counted in Redis at redis://127.0.0.1:${redis.port}`);
    expect(logged).not.toContain(REDIS_PASSWORD);
  });
});

describe('rate limits in Redis, when Redis goes away', () => {
  let redis: RedisServer;
  let testApp: TestApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    testApp = await startTestApp({
      RATE_LIMIT_PER_TOKEN: '5',
      RATE_LIMIT_TOKEN_WINDOW_MS: '60000',
      REDIS_URL: redis.url,
      REDIS_TIMEOUT_MS: '100',
      LOG_LEVEL: 'info',
    });
  });

  afterAll(async () => {
    await testApp?.close();
    await redis?.stop();
  });

  beforeEach(async () => {
    await truncateAll(testApp.db);
  });

  it('serves every request, uncounted, says so once, and counts again once Redis is back', async () => {
    for (let request = 1; request <= 3; request++) {
      await expect(timedCreate(testApp)).resolves.toMatchObject({ status: 200 });
    }

    await redis.stop();
    // Twice the limit, and more: nothing is counted, nothing is refused, nothing waits.
    for (let request = 1; request <= 12; request++) {
      const { status, ms } = await timedCreate(testApp);
      expect({ request, status, fast: ms < 1_000 }).toStrictEqual({ request, status: 200, fast: true });
    }
    await expect(metric(testApp, 'rate_limit_storage_up')).resolves.toBe(0);
    expect(await metric(testApp, 'rate_limit_storage_errors_total')).toBeGreaterThanOrEqual(12);
    const warnings = rateLimitLines(testApp, 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0].msg)).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(.+\)/);

    await redis.start();
    await eventually(() =>
      rateLimitLines(testApp, 'info').some((entry) => String(entry.msg).includes(' is back: ')),
    );
    await expect(metric(testApp, 'rate_limit_storage_up')).resolves.toBe(1);

    // The restarted Redis is empty: a fresh budget of 5, counted again.
    for (let request = 1; request <= 5; request++) {
      await expect(timedCreate(testApp)).resolves.toMatchObject({ status: 200 });
    }
    await expect(timedCreate(testApp)).resolves.toMatchObject({ status: 429 });
    expect(rateLimitLines(testApp, 'warn')).toHaveLength(1);
  });
});

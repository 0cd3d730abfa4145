import { performance } from 'node:perf_hooks';

import { type TestApp, type TestEnv, useTestApp } from './support/app.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { createPlantAs, createPlantWithBudget } from './support/factories.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';
import { describeWith, REDIS } from './support/system-packages.js';

const OTHER_TOKEN = 'another-test-token-0123456789';
const THIRD_TOKEN = 'a-third-test-token-0123456789';
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

/**
 * The settings of an instance that counts rate limits in `redis`: `perToken`
 * requests a token, and `authFailures` failed authentications an address, a
 * minute; `tokens` are the static tokens it takes.
 */
function countedIn(
  redis: RedisServer,
  perToken: number,
  authFailures: number,
  tokens = [TEST_TOKEN, OTHER_TOKEN],
): TestEnv {
  return {
    AUTH_TOKENS: tokens.join(','),
    RATE_LIMIT_PER_TOKEN: String(perToken),
    RATE_LIMIT_TOKEN_WINDOW_MS: '60000',
    RATE_LIMIT_AUTH_FAILURES: String(authFailures),
    RATE_LIMIT_AUTH_WINDOW_MS: '60000',
    REDIS_URL: redis.url,
  };
}

function rateLimitLines(testApp: TestApp, level: string) {
  return testApp.logs.entries().filter((entry) => entry.context === 'RateLimit' && entry.level === level);
}

describeWith([REDIS])('rate limits in Redis, shared by two instances', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ password: REDIS_PASSWORD });
  });
  const env = () => ({
    ...countedIn(redis, 10, 3, [TEST_TOKEN, OTHER_TOKEN, THIRD_TOKEN]),
    LOG_LEVEL: 'info',
  });
  const first = useTestApp(env);
  const second = useTestApp(env);
  afterAll(async () => {
    await redis?.stop();
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

  it('count an address’s failed authentications together, and lock its bad tokens out on both', async () => {
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
    // Bad tokens are refused on the instance that saw no failure since; a valid one is served.
    await expect(createPlantAs(first.url, 'wrong-token-4-0123456789')).resolves.toMatchObject({
      status: 429,
    });
    await expect(createPlantAs(first.url, OTHER_TOKEN)).resolves.toMatchObject({ status: 200 });
  });

  it('report one shared budget: each answer’s remaining count is what both instances left', async () => {
    const answers = [];
    for (let request = 1; request <= 11; request++) {
      const instance = request % 2 === 1 ? first : second;
      answers.push(await createPlantWithBudget(instance.url, THIRD_TOKEN));
    }

    expect(answers.map(({ status }) => status)).toStrictEqual([...Array(10).fill(200), 429]);
    expect(answers.map(({ rateLimitPolicy }) => rateLimitPolicy)).toStrictEqual(
      Array(11).fill('"token";q=10;w=60'),
    );
    // Counted in one place, the remaining count falls by one whichever instance answers.
    expect(answers.map(({ rateLimit }) => rateLimit?.replace(/;t=\d+$/, ''))).toStrictEqual(
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0].map((left) => `"token";r=${left}`),
    );
    await expect(metric(first, 'rate_limit_storage_errors_total')).resolves.toBe(0);
    await expect(metric(second, 'rate_limit_storage_errors_total')).resolves.toBe(0);
  });

  it('name Redis in the log without its password', () => {
    const logged = first.logs.text() + second.logs.text();

    expect(logged).toContain(`Rate limits are counted in Redis at redis://127.0.0.1:${redis.port}`);
    expect(logged).not.toContain(REDIS_PASSWORD);
  });
});

describeWith([REDIS])('rate limits in Redis, when Redis goes away', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  const testApp = useTestApp(() => ({
    ...countedIn(redis, 5, 3),
    REDIS_TIMEOUT_MS: '100',
    LOG_LEVEL: 'info',
  }));
  afterAll(async () => {
    await redis?.stop();
  });

  it('counts in memory while Redis is away, says so once, and counts in Redis again once it is back', async () => {
    for (let request = 1; request <= 3; request++) {
      await expect(timedCreate(testApp)).resolves.toMatchObject({ status: 200 });
    }

    await redis.stop();
    // This instance's memory counts: a budget of 5 of its own, then 429; nothing waits for Redis.
    const statuses = [];
    for (let request = 1; request <= 6; request++) {
      const { status, ms } = await timedCreate(testApp);
      expect({ request, fast: ms < 1_000 }).toStrictEqual({ request, fast: true });
      statuses.push(status);
    }
    expect(statuses).toStrictEqual([200, 200, 200, 200, 200, 429]);
    // The lockout holds too, and still serves a valid token.
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(timedCreate(testApp, `wrong-token-${attempt}-0123456789`)).resolves.toMatchObject({
        status: 401,
      });
    }
    await expect(timedCreate(testApp, 'wrong-token-4-0123456789')).resolves.toMatchObject({ status: 429 });
    await expect(timedCreate(testApp, OTHER_TOKEN)).resolves.toMatchObject({ status: 200 });

    await expect(metric(testApp, 'rate_limit_storage_up')).resolves.toBe(0);
    expect(await metric(testApp, 'rate_limit_storage_errors_total')).toBeGreaterThanOrEqual(10);
    const warnings = rateLimitLines(testApp, 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0].msg)).toMatch(
      /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(.+\): each instance counts rate limits in its own memory/,
    );

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

describeWith([REDIS])('rate limits in a Redis Cluster', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ cluster: true });
  });
  const testApp = useTestApp(() => countedIn(redis, 3, 2));
  afterAll(async () => {
    await redis?.stop();
  });

  it('count there: each hit’s keys share one slot, as a cluster requires of a script', async () => {
    const statuses = [];
    for (let request = 1; request <= 4; request++) {
      statuses.push((await timedCreate(testApp)).status);
    }
    for (let attempt = 1; attempt <= 3; attempt++) {
      statuses.push((await timedCreate(testApp, `wrong-token-${attempt}-0123456789`)).status);
    }

    expect(statuses).toStrictEqual([200, 200, 200, 429, 401, 401, 429]);
    await expect(metric(testApp, 'rate_limit_storage_up')).resolves.toBe(1);
    // Keys in two slots would fail every script (CROSSSLOT) and be counted in memory instead.
    await expect(metric(testApp, 'rate_limit_storage_errors_total')).resolves.toBe(0);
  });
});

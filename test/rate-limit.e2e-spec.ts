import { createPlantAs, createPlantWithBudget } from './support/factories.js';
import { TEST_TOKEN } from './support/environment.js';
import { type TestApp, useTestApp } from './support/app.js';

const OTHER_TOKEN = 'another-test-token-0123456789';
const THIRD_TOKEN = 'a-third-test-token-0123456789';
const FOURTH_TOKEN = 'a-fourth-test-token-0123456789';

/** A create through the running service with this token. */
function create(testApp: TestApp, token: string) {
  return createPlantAs(testApp.url, token);
}

describe('rate limits', () => {
  const testApp = useTestApp({
    AUTH_TOKENS: `${TEST_TOKEN},${OTHER_TOKEN},${THIRD_TOKEN},${FOURTH_TOKEN}`,
    RATE_LIMIT_PER_TOKEN: '5',
    RATE_LIMIT_TOKEN_WINDOW_MS: '60000',
    RATE_LIMIT_AUTH_FAILURES: '3',
    RATE_LIMIT_AUTH_WINDOW_MS: '60000',
  });

  it('refuses a token over its budget with 429 and Retry-After, and leaves other tokens alone', async () => {
    for (let request = 1; request <= 5; request++) {
      await expect(create(testApp, TEST_TOKEN)).resolves.toMatchObject({ status: 200 });
    }

    const refused = await create(testApp, TEST_TOKEN);
    expect(refused).toMatchObject({ status: 429, body: { error: 429 } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect((refused.body as { message: string }).message).toMatch(
      /^Too many requests for this token; retry after \d+ s$/,
    );

    await expect(create(testApp, OTHER_TOKEN)).resolves.toMatchObject({ status: 200 });
  });

  it('does not count public routes, even with a token: its budget is untouched', async () => {
    for (let request = 0; request < 20; request++) {
      const response = await fetch(`${testApp.url}/health/live`, {
        headers: { Authorization: `Bearer ${THIRD_TOKEN}` },
      });
      expect(response.status).toBe(200);
    }

    // The whole budget of 5 is still there, and no more.
    for (let request = 1; request <= 5; request++) {
      await expect(create(testApp, THIRD_TOKEN)).resolves.toMatchObject({ status: 200 });
    }
    await expect(create(testApp, THIRD_TOKEN)).resolves.toMatchObject({ status: 429 });
  });

  it('locks out an address’s bad tokens after repeated failed authentications, and still serves its valid ones', async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(create(testApp, `wrong-token-${attempt}-0123456789`)).resolves.toMatchObject({
        status: 401,
      });
    }

    const locked = await create(testApp, 'wrong-token-4-0123456789');
    expect(locked).toMatchObject({ status: 429, body: { error: 429 } });
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect((locked.body as { message: string }).message).toMatch(
      /^Too many failed authentication attempts from this address; retry after \d+ s$/,
    );

    // A valid token is served: the lockout limits failures, and cannot be turned on someone else.
    await expect(create(testApp, OTHER_TOKEN)).resolves.toMatchObject({ status: 200 });
    await expect(create(testApp, 'wrong-token-5-0123456789')).resolves.toMatchObject({ status: 429 });
  });

  it('tells a token what is left of its budget on every answer it counts, and public routes nothing', async () => {
    const answers = [];
    for (let request = 1; request <= 6; request++) {
      answers.push(await createPlantWithBudget(testApp.url, FOURTH_TOKEN));
    }
    const probe = await fetch(`${testApp.url}/health/live`, {
      headers: { Authorization: `Bearer ${FOURTH_TOKEN}` },
    });

    expect(answers.map(({ status }) => status)).toStrictEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map(({ rateLimitPolicy }) => rateLimitPolicy)).toStrictEqual(
      Array(6).fill('"token";q=5;w=60'),
    );
    const fields = answers.map(({ rateLimit }) => /^"token";r=(\d+);t=(\d+)$/.exec(rateLimit ?? ''));
    expect(fields.map((field) => Number(field?.[1]))).toStrictEqual([4, 3, 2, 1, 0, 0]);
    for (const field of fields) {
      expect(Number(field?.[2])).toBeGreaterThan(0);
      expect(Number(field?.[2])).toBeLessThanOrEqual(60);
    }
    // The refusal's reset is its Retry-After: no sooner, as the draft asks.
    expect(fields[5]?.[2]).toBe(answers[5].retryAfter);
    expect(probe.headers.get('ratelimit')).toBeNull();
    expect(probe.headers.get('ratelimit-policy')).toBeNull();
  });
});

describe('rate limits on failed authentications', () => {
  const testApp = useTestApp({
    AUTH_TOKENS: TEST_TOKEN,
    RATE_LIMIT_AUTH_FAILURES: '3',
    RATE_LIMIT_AUTH_WINDOW_MS: '60000',
  });

  it('tell an address what is left of its budget on each refused token, and nothing when it sent none', async () => {
    const missing = await fetch(`${testApp.url}/plants`);
    const refused = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      refused.push(await createPlantWithBudget(testApp.url, `wrong-token-${attempt}-0123456789`));
    }

    expect(missing.status).toBe(401);
    expect(missing.headers.get('ratelimit')).toBeNull();
    // The third failure spends the budget (r=0): the bad tokens after it are refused with 429.
    expect(refused.map(({ status }) => status)).toStrictEqual([401, 401, 401, 429, 429]);
    expect(refused.map(({ rateLimitPolicy }) => rateLimitPolicy)).toStrictEqual(
      Array(5).fill('"auth-failures";q=3;w=60'),
    );
    expect(refused.map(({ rateLimit }) => rateLimit?.replace(/;t=\d+$/, ''))).toStrictEqual([
      '"auth-failures";r=2',
      '"auth-failures";r=1',
      '"auth-failures";r=0',
      '"auth-failures";r=0',
      '"auth-failures";r=0',
    ]);
    expect(refused[4].rateLimit).toBe(`"auth-failures";r=0;t=${refused[4].retryAfter}`);
  });
});

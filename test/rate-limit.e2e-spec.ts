import { createPlantAs } from './support/factories.js';
import { TEST_TOKEN } from './support/environment.js';
import { type TestApp, useTestApp } from './support/app.js';

const OTHER_TOKEN = 'another-test-token-0123456789';
const THIRD_TOKEN = 'a-third-test-token-0123456789';

/** A create through the running service with this token. */
function create(testApp: TestApp, token: string) {
  return createPlantAs(testApp.url, token);
}

describe('rate limits', () => {
  const testApp = useTestApp({
    AUTH_TOKENS: `${TEST_TOKEN},${OTHER_TOKEN},${THIRD_TOKEN}`,
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
});

import { startTestApp, type TestApp } from './support/app.js';
import { TEST_TOKEN } from './support/environment.js';
import { rawRequest } from './support/raw-request.js';

const VALID = `Bearer ${TEST_TOKEN}`;
const WRONG = 'Bearer wrong-token-0123456789abcdef';

describe('Bearer authentication over HTTP', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_AUTH_FAILURES: '0' });
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('checks a JSON body as it reads it, before the token, and any other body after the token (docs/api.md)', async () => {
    const statusOf = async (headers: Record<string, string>, body: string) =>
      (await rawRequest(testApp.url, { headers, body })).status;
    const json = { 'Content-Type': 'application/json' };
    const text = { 'Content-Type': 'text/plain' };
    const oversized = `{"name": "${'x'.repeat(20_000)}"}`;

    // A body declared JSON: its size, charset, encoding and syntax answer before the token.
    await expect(statusOf(json, oversized)).resolves.toBe(413);
    await expect(statusOf({ 'Content-Type': 'application/json; charset=latin1' }, '{}')).resolves.toBe(415);
    await expect(statusOf({ ...json, 'Content-Encoding': 'gzip' }, '{}')).resolves.toBe(415);
    await expect(statusOf(json, '{"id": 1,')).resolves.toBe(400);
    await expect(statusOf(json, '{"__proto__": {}}')).resolves.toBe(400);
    // Any other body is left unread: the token answers first, then its media type (415, not 413).
    await expect(statusOf(text, '{}')).resolves.toBe(401);
    await expect(statusOf({ ...text, Authorization: WRONG }, '{}')).resolves.toBe(401);
    await expect(statusOf({ ...text, Authorization: VALID }, '{}')).resolves.toBe(415);
    await expect(statusOf({ ...text, Authorization: VALID }, oversized)).resolves.toBe(415);
    // A JSON body's fields answer after the token.
    await expect(statusOf(json, '{"id": "one"}')).resolves.toBe(401);
    await expect(statusOf({ ...json, Authorization: VALID }, '{"id": "one"}')).resolves.toBe(400);
  });
});

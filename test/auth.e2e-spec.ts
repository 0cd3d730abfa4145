import { useTestApp } from './support/app.js';
import { TEST_TOKEN } from './support/environment.js';
import { newPlant } from './support/factories.js';
import { rawRequest } from './support/raw-request.js';

const VALID = `Bearer ${TEST_TOKEN}`;
const WRONG = 'Bearer wrong-token-0123456789abcdef';

describe('Bearer authentication over HTTP', () => {
  const testApp = useTestApp({ RATE_LIMIT_AUTH_FAILURES: '0' });

  /** A create of a fresh plant with these headers, and whether the plant is stored afterwards. */
  async function createWith(headers: Record<string, string | string[]>) {
    const plant = newPlant();
    const answer = await rawRequest(testApp.url, {
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(plant),
    });
    const stored = await testApp.db.query('SELECT 1 FROM plants WHERE id = $1', [plant.id]);
    return {
      status: answer.status,
      challenge: answer.headers['www-authenticate'],
      body: answer.json,
      stored: stored.rowCount === 1,
    };
  }

  it.each([
    ['the same valid token twice', [VALID, VALID]],
    ['a valid token, then a wrong one', [VALID, WRONG]],
    ['a wrong token, then a valid one', [WRONG, VALID]],
    ['a valid token, then an empty header', [VALID, '']],
  ])(
    'answers 400 invalid_request to two Authorization headers (%s), and stores nothing',
    async (_case, sent) => {
      await expect(createWith({ Authorization: sent })).resolves.toStrictEqual({
        status: 400,
        challenge: 'Bearer realm="plant-store", error="invalid_request"',
        body: { error: 400, message: 'Send one Authorization header: this request has several' },
        stored: false,
      });
    },
  );

  it('serves one Authorization header as before', async () => {
    await expect(createWith({ Authorization: VALID })).resolves.toMatchObject({ status: 200, stored: true });
  });

  it('checks a body as it arrives, before the token, and its fields after the token (docs/api.md)', async () => {
    const send = (headers: Record<string, string>, body: string) =>
      rawRequest(testApp.url, { headers, body });
    const statusOf = async (headers: Record<string, string>, body: string) =>
      (await send(headers, body)).status;
    const json = { 'Content-Type': 'application/json' };
    const text = { 'Content-Type': 'text/plain' };
    const oversized = `{"name": "${'x'.repeat(20_000)}"}`;

    // The body: its media type, size, charset, encoding and syntax answer before the token.
    await expect(statusOf(json, oversized)).resolves.toBe(413);
    await expect(statusOf({ 'Content-Type': 'application/json; charset=latin1' }, '{}')).resolves.toBe(415);
    await expect(statusOf({ ...json, 'Content-Encoding': 'gzip' }, '{}')).resolves.toBe(415);
    await expect(statusOf(json, '{"id": 1,')).resolves.toBe(400);
    await expect(statusOf(json, '{"__proto__": {}}')).resolves.toBe(400);
    await expect(statusOf(json, '[]')).resolves.toBe(400);
    // Another media type is refused unread, however large (415, not 413), with or without a token.
    await expect(statusOf(text, '{}')).resolves.toBe(415);
    await expect(statusOf({ ...text, Authorization: WRONG }, '{}')).resolves.toBe(415);
    await expect(statusOf({ ...text, Authorization: VALID }, '{}')).resolves.toBe(415);
    await expect(statusOf(text, oversized)).resolves.toBe(415);
    // A JSON body's fields answer after the token.
    await expect(statusOf(json, '{"id": "one"}')).resolves.toBe(401);
    await expect(statusOf({ ...json, Authorization: VALID }, '{"id": "one"}')).resolves.toBe(400);
  });
});

import { TEST_TOKEN } from './environment.js';

let nextId = 1000;

/** A valid NewPlant body with a fresh id; override any field, or drop one with `undefined`. */
export function newPlant(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: nextId++,
    name: 'Monstera deliciosa',
    tag: 'aroid',
    ...overrides,
  };
  for (const key of Object.keys(body)) {
    if (body[key] === undefined) {
      delete body[key];
    }
  }
  return body;
}

export const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` } as const;

/** POSTs a fresh plant with the bearer token; answers the status, the auth headers and the parsed body. */
export async function createPlantAs(url: string, token: string) {
  const response = await postNewPlant(url, token);
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    retryAfter: response.headers.get('retry-after'),
    body: JSON.parse(await response.text()) as unknown,
  };
}

/** A create as `createPlantAs` sends it, and the budget its answer tells (the RateLimit fields). */
export async function createPlantWithBudget(url: string, token: string) {
  const response = await postNewPlant(url, token);
  await response.body?.cancel();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    rateLimitPolicy: response.headers.get('ratelimit-policy'),
    rateLimit: response.headers.get('ratelimit'),
  };
}

/** Creates `count` fresh plants with the test token, `concurrency` requests at a time, each answered 200. */
export async function createPlants(url: string, count: number, concurrency = 1): Promise<void> {
  for (let done = 0; done < count; done += concurrency) {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count - done) }, async () => {
        const response = await postNewPlant(url, TEST_TOKEN);
        expect(response.status).toBe(200);
      }),
    );
  }
}

function postNewPlant(url: string, token: string): Promise<Response> {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(newPlant()),
  });
}

/** JSON as a client that reads ids exactly would: every number as a bigint, from its source text. */
export function parseWithBigInts(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? BigInt(context.source) : value,
  );
}

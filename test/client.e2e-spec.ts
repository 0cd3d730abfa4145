import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import { Webhook } from 'standardwebhooks';

import {
  createPlantStoreClient,
  isIdempotent,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStorePreconditionFailedError,
  PlantStoreTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
  type Middleware,
  type NewPlant,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type VerifyWebhookOptions,
} from '../clients/typescript/src/index.js';
import {
  parseIntegersByQuoting,
  parseIntegersWithSourceText,
  parseJson,
  stringifyJson,
} from '../clients/typescript/src/json.js';
import { plantRow } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { JwtIssuer } from './support/jwt-issuer.js';
import { freePort } from './support/service-process.js';
import { UnavailableProxy } from './support/unavailable-proxy.js';
import { WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';
import { type TestApp, useTestApp } from './support/app.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** The first integer a double cannot hold: read into a number, it becomes 2^53. */
const BEYOND_DOUBLES = 2n ** 53n + 1n;

/** What `promise` was rejected with (and a failure if it was not). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) {
    items.push(item);
  }
  return items;
}

/**
 * Runs `work` while a transaction of the test's own holds an exclusive lock
 * on the plants table: the service's reads wait for it until their
 * statement timeout (1 s).
 */
async function withPlantsLocked<T>(testApp: TestApp, work: () => Promise<T>): Promise<T> {
  const locker = await testApp.db.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE plants IN ACCESS EXCLUSIVE MODE');
    return await work();
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
  }
}

/** How many statements of the test database wait for a lock. */
async function readsWaitingOnLocks(testApp: TestApp): Promise<number> {
  const { rows } = await testApp.db.query<{ waiting: number }>(
    "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rows[0].waiting;
}

describe('the TypeScript client, against the service', () => {
  const testApp = useTestApp();
  let client: PlantStoreClient;

  beforeAll(() => {
    client = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN });
  });

  it('creates a plant, and reads it back with its id as a bigint', async () => {
    await expect(
      client.addPlant({ id: 10n, name: 'Monstera deliciosa', tag: 'aroid' }),
    ).resolves.toStrictEqual({
      name: 'Monstera deliciosa',
      tag: 'aroid',
    });
    await expect(client.addPlant({ id: 11, name: 'Fern' })).resolves.toStrictEqual({ name: 'Fern' });

    await expect(client.getPlant(10)).resolves.toStrictEqual({
      id: 10n,
      name: 'Monstera deliciosa',
      tag: 'aroid',
    });
    await expect(client.getPlant(11n)).resolves.toStrictEqual({ id: 11n, name: 'Fern' });
  });

  it('keeps every id exact, to the ends of the int64 range', async () => {
    for (const id of [INT64_MIN, -1n, BEYOND_DOUBLES, INT64_MAX]) {
      await client.addPlant({ id, name: `Plant ${id}` });
    }

    expect((await plantRow(testApp.db, INT64_MAX))?.id).toBe('9223372036854775807');
    expect((await plantRow(testApp.db, BEYOND_DOUBLES))?.id).toBe('9007199254740993');
    await expect(client.getPlant(INT64_MAX)).resolves.toStrictEqual({
      id: INT64_MAX,
      name: `Plant ${INT64_MAX}`,
    });
    await expect(client.getPlant(BEYOND_DOUBLES)).resolves.toStrictEqual({
      id: BEYOND_DOUBLES,
      name: `Plant ${BEYOND_DOUBLES}`,
    });
    const { plants } = await client.listPlants({ after: INT64_MIN });
    expect(plants.map((plant) => plant.id)).toStrictEqual([-1n, BEYOND_DOUBLES, INT64_MAX]);
  });

  it('lists a tag a page at a time, following the Link header, and walks every page', async () => {
    for (let id = 1n; id <= 10n; id++) {
      await client.addPlant({ id, name: `Plant ${id}`, tag: id % 3n === 0n ? 'fern' : 'aroid' });
    }
    const aroids = [1n, 2n, 4n, 5n, 7n, 8n, 10n];

    const first = await client.listPlants({ limit: 3, tag: 'aroid' });
    expect(first.plants.map((plant) => plant.id)).toStrictEqual([1n, 2n, 4n]);
    expect(first.plants[0]).toStrictEqual({ id: 1n, name: 'Plant 1', tag: 'aroid' });
    expect(first.next).toBe(4n);
    const second = await client.listPlants({ limit: 3, tag: 'aroid', after: first.next });
    expect(second.plants.map((plant) => plant.id)).toStrictEqual([5n, 7n, 8n]);
    expect(second.next).toBe(8n);
    const last = await client.listPlants({ limit: 3, tag: 'aroid', after: second.next });
    expect(last).toStrictEqual({ plants: [{ id: 10n, name: 'Plant 10', tag: 'aroid' }], next: undefined });

    const walked = await collect(client.plants({ limit: 3, tag: 'aroid' }));
    expect(walked.map((plant) => plant.id)).toStrictEqual(aroids);
    expect(await collect(client.plants())).toHaveLength(10);
  });

  it('deletes a plant; reading or deleting it again is a 404', async () => {
    await client.addPlant({ id: INT64_MAX, name: 'Fern' });

    await expect(client.deletePlant(INT64_MAX)).resolves.toBeUndefined();

    // Both at once, each awaited from the start: whichever fails first is not left unhandled meanwhile.
    const errors = await Promise.all([
      rejection(client.getPlant(INT64_MAX)),
      rejection(client.deletePlant(INT64_MAX)),
    ]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(PlantStoreError);
      expect(error).toMatchObject({ status: 404, error: 404, message: `No plant has the id ${INT64_MAX}` });
    }
  });

  it('updates a plant by a merge patch, answering it with a new ETag; tag null removes the tag', async () => {
    await client.addPlant({ id: BEYOND_DOUBLES, name: 'Fern', tag: 'x' });
    const read = await client.getPlantWithEtag(BEYOND_DOUBLES);
    expect(read.plant).toStrictEqual({ id: BEYOND_DOUBLES, name: 'Fern', tag: 'x' });
    expect(read.etag).toMatch(/^"\d+"$/);

    const renamed = await client.updatePlant(
      BEYOND_DOUBLES,
      { name: 'Maidenhair fern' },
      { ifMatch: read.etag },
    );
    expect(renamed.plant).toStrictEqual({ id: BEYOND_DOUBLES, name: 'Maidenhair fern', tag: 'x' });
    expect(renamed.etag).not.toBe(read.etag);

    const untagged = await client.updatePlant(BEYOND_DOUBLES, { tag: null });
    expect(untagged.plant).toStrictEqual({ id: BEYOND_DOUBLES, name: 'Maidenhair fern' });
    expect((await plantRow(testApp.db, BEYOND_DOUBLES))?.tag).toBeNull();
    await expect(client.getPlantWithEtag(BEYOND_DOUBLES)).resolves.toStrictEqual(untagged);
    await expect(client.getPlant(BEYOND_DOUBLES)).resolves.toStrictEqual(untagged.plant);
  });

  it('throws a PlantStorePreconditionFailedError for a change made against a stale ETag, and changes nothing', async () => {
    await client.addPlant({ id: 7n, name: 'Fern' });
    const { etag: stale } = await client.getPlantWithEtag(7n);
    const { etag: current } = await client.updatePlant(7n, { tag: 'shade' });

    const errors = await Promise.all([
      rejection(client.updatePlant(7n, { name: 'Lost update' }, { ifMatch: stale })),
      rejection(client.deletePlant(7n, { ifMatch: stale })),
    ]);

    for (const error of errors) {
      expect(error).toBeInstanceOf(PlantStorePreconditionFailedError);
      expect(error).toBeInstanceOf(PlantStoreError);
      expect(error).toMatchObject({ name: 'PlantStorePreconditionFailedError', status: 412, error: 412 });
    }
    await expect(client.getPlantWithEtag(7n)).resolves.toStrictEqual({
      plant: { id: 7n, name: 'Fern', tag: 'shade' },
      etag: current,
    });
    // Another failure stays a PlantStoreError of its own kind.
    const missing = await rejection(client.updatePlant(8n, { name: 'Ghost' }));
    expect(missing).toBeInstanceOf(PlantStoreError);
    expect(missing).not.toBeInstanceOf(PlantStorePreconditionFailedError);
    expect(missing).toMatchObject({ status: 404 });
  });

  it('deletes a plant with ifMatch its current ETag', async () => {
    await client.addPlant({ id: INT64_MIN, name: 'Fern' });
    const { etag } = await client.updatePlant(INT64_MIN, { name: 'Fern', tag: 'x' });

    await expect(client.deletePlant(INT64_MIN, { ifMatch: etag })).resolves.toBeUndefined();

    expect(await plantRow(testApp.db, INT64_MIN)).toBeUndefined();
  });

  it('throws a 400 for a patch breaking a rule, and sends the patch as application/merge-patch+json', async () => {
    await client.addPlant({ id: 9n, name: 'Fern' });
    const sent: Array<string | null> = [];
    const watched = createPlantStoreClient({
      baseUrl: testApp.url,
      token: TEST_TOKEN,
      fetch: (request) => {
        sent.push(request.headers.get('Content-Type'));
        return fetch(request);
      },
    });

    const blank = await rejection(watched.updatePlant(9n, { name: ' ' }));

    expect(blank).toMatchObject({ status: 400, error: 400, message: expect.stringMatching(/^name /) });
    expect(sent).toStrictEqual(['application/merge-patch+json']);
    await expect(watched.updatePlant(9.5, { name: 'Fern' })).rejects.toThrow(RangeError);
    expect(sent).toHaveLength(1);
  });

  it('answers a replay of the same plant, and throws a 409 for another plant under a taken id', async () => {
    await client.addPlant({ id: 42n, name: 'Fern', tag: 'x' });
    await expect(client.addPlant({ id: 42n, name: 'Fern', tag: 'x' })).resolves.toStrictEqual({
      name: 'Fern',
      tag: 'x',
    });

    const error = await rejection(client.addPlant({ id: 42n, name: 'Cactus' }));

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ name: 'PlantStoreError', status: 409, error: 409 });
    expect((error as PlantStoreError).message).toContain('42');
    expect((error as PlantStoreError).requestId).toEqual(expect.any(String));
  });

  it('throws a 401 for a token the service does not know', async () => {
    const stranger = createPlantStoreClient({ baseUrl: testApp.url, token: 'not-a-token-the-service-knows' });

    const error = await rejection(stranger.listPlants());

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({
      status: 401,
      error: 401,
      message: 'The bearer token is invalid or expired',
    });
  });

  it('throws a 400 that names the field breaking its rule', async () => {
    const emptyName = await rejection(client.addPlant({ id: 1n, name: '' }));
    expect(emptyName).toBeInstanceOf(PlantStoreError);
    expect(emptyName).toMatchObject({ status: 400, error: 400, message: expect.stringMatching(/^name /) });

    const longTag = await rejection(client.addPlant({ id: 1n, name: 'Fern', tag: 'x'.repeat(256) }));
    expect(longTag).toMatchObject({ status: 400, message: expect.stringMatching(/^tag /) });

    const badLimit = await rejection(client.listPlants({ limit: 101 }));
    expect(badLimit).toMatchObject({ status: 400, message: expect.stringContaining('limit') });
  });

  it('refuses an id that is not an exact int64 before sending anything', async () => {
    const sent: string[] = [];
    const watched = createPlantStoreClient({
      baseUrl: testApp.url,
      token: TEST_TOKEN,
      fetch: (request) => {
        sent.push(request.url);
        return fetch(request);
      },
    });

    // 2^53 + 1 written as a number is already 2^53: sending it would store another plant.
    await expect(watched.addPlant({ id: Number(BEYOND_DOUBLES), name: 'Fern' })).rejects.toThrow(RangeError);
    await expect(watched.getPlant(1.5)).rejects.toThrow(RangeError);
    await expect(watched.deletePlant(INT64_MAX + 1n)).rejects.toThrow(RangeError);
    await expect(watched.listPlants({ after: INT64_MIN - 1n })).rejects.toThrow(RangeError);
    await expect(watched.getPlant('7' as unknown as bigint)).rejects.toThrow(TypeError);
    expect(sent).toStrictEqual([]);
  });

  it('throws a PlantStoreTimeoutError, not a PlantStoreError, when the answer takes longer than timeoutMs', async () => {
    const impatient = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN, timeoutMs: 200 });

    const error = await withPlantsLocked(testApp, () => rejection(impatient.getPlant(1n)));

    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    expect(error).not.toBeInstanceOf(PlantStoreError);
    expect((error as Error).message).toBe(`GET ${testApp.url}/plants/1: no answer within 200 ms`);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
  });

  it('stops a call when its own signal aborts, with the signal’s reason, while the service is answering', async () => {
    const controller = new AbortController();
    const reason = new Error('The user left the page');

    const error = await withPlantsLocked(testApp, async () => {
      const call = rejection(client.getPlant(1n, { signal: controller.signal }));
      // The request has reached the service: its read waits for the lock.
      await eventually(async () => (await readsWaitingOnLocks(testApp)) > 0);
      controller.abort(reason);
      return call;
    });

    expect(error).toBe(reason);
  });

  it('keeps timeoutMs for a call that brings a signal of its own', async () => {
    const impatient = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN, timeoutMs: 200 });
    const signal = new AbortController().signal;

    const error = await withPlantsLocked(testApp, () => rejection(impatient.getPlant(1n, { signal })));

    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect(signal.aborted).toBe(false);
  });

  it('sends nothing, and asks for no token, for a call whose signal has already aborted', async () => {
    const sent: string[] = [];
    let tokensAskedFor = 0;
    const watched = createPlantStoreClient({
      baseUrl: testApp.url,
      token: () => {
        tokensAskedFor++;
        return TEST_TOKEN;
      },
      fetch: (request) => {
        sent.push(request.url);
        return fetch(request);
      },
    });
    const reason = new Error('Cancelled');

    await expect(
      watched.addPlant({ id: 1n, name: 'Fern' }, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);

    expect(sent).toStrictEqual([]);
    expect(tokensAskedFor).toBe(0);
    expect(await plantRow(testApp.db, 1n)).toBeUndefined();
  });

  it('sends the headers a call brings; an Authorization among them instead of the client’s token', async () => {
    const requestId = `call-${randomUUID()}`;
    const sent: Array<[string | null, string | null]> = [];
    const watched = createPlantStoreClient({
      baseUrl: testApp.url,
      token: TEST_TOKEN,
      fetch: (request) => {
        sent.push([request.headers.get('X-Request-Id'), request.headers.get('Content-Type')]);
        return fetch(request);
      },
    });

    const missing = await rejection(
      watched.updatePlant(1n, { name: 'Fern' }, { headers: { 'X-Request-Id': requestId } }),
    );
    expect(missing).toMatchObject({ status: 404, requestId });
    // The merge patch's media type stays.
    expect(sent).toStrictEqual([[requestId, 'application/merge-patch+json']]);

    const stranger = await rejection(
      watched.listPlants({ headers: { Authorization: 'Bearer not-a-token-the-service-knows' } }),
    );
    expect(stranger).toMatchObject({ status: 401 });
  });

  it('throws a PlantStoreNetworkError, with the cause, when the service cannot be reached', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const unreachable = createPlantStoreClient({ baseUrl: nowhere, token: TEST_TOKEN });

    const error = await rejection(unreachable.getPlant(1n));

    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    expect(error).not.toBeInstanceOf(PlantStoreTimeoutError);
    expect(error).not.toBeInstanceOf(PlantStoreError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toMatchObject({ message: 'fetch failed' });
  });

  it('still throws a PlantStoreError for a failure whose body is not the Error object (from a proxy)', async () => {
    const behindProxy = createPlantStoreClient({
      baseUrl: testApp.url,
      token: TEST_TOKEN,
      fetch: () =>
        Promise.resolve(new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' })),
    });

    const error = await rejection(behindProxy.getPlant(1n));

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ status: 502, error: 502, message: 'The service answered 502 Bad Gateway' });
  });

  it('calls any operation of the document by its path, typed by it, with int64s exact both ways', async () => {
    const created = await client.POST('/plants', { body: { id: BEYOND_DOUBLES, name: 'Fern', tag: 'x' } });
    expect(created.data).toStrictEqual({ name: 'Fern', tag: 'x' });
    expect(created.response.status).toBe(200);

    const read = await client.GET('/plants/{id}', { params: { path: { id: BEYOND_DOUBLES } } });
    expect(read.data).toStrictEqual({ id: BEYOND_DOUBLES, name: 'Fern', tag: 'x' });
    const etag = read.response.headers.get('ETag')!;

    const patched = await client.PATCH('/plants/{id}', {
      params: { path: { id: BEYOND_DOUBLES }, header: { 'If-Match': etag } },
      body: { tag: null },
    });
    expect(patched.data).toStrictEqual({ id: BEYOND_DOUBLES, name: 'Fern' });
    expect((await plantRow(testApp.db, BEYOND_DOUBLES))?.tag).toBeNull();

    const listed = await client.GET('/plants', { params: { query: { after: BEYOND_DOUBLES - 1n } } });
    expect(listed.data).toStrictEqual([{ id: BEYOND_DOUBLES, name: 'Fern' }]);

    const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: BEYOND_DOUBLES } } });
    expect(deleted.data).toBeUndefined();
    expect(deleted.response.status).toBe(204);
    const error = await rejection(client.GET('/plants/{id}', { params: { path: { id: BEYOND_DOUBLES } } }));
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ status: 404, message: `No plant has the id ${BEYOND_DOUBLES}` });
  });

  it('passes every call through the middleware that use() adds, until eject() removes it', async () => {
    const requestId = `trace-${randomUUID()}`;
    const seen: string[] = [];
    const tracing: Middleware = {
      onRequest({ request, schemaPath }) {
        // The client's token is added after middleware: what logs requests cannot log it.
        seen.push(`${request.method} ${schemaPath} ${request.headers.get('Authorization')}`);
        request.headers.set('X-Request-Id', requestId);
      },
      onResponse({ response }) {
        seen.push(`${response.status} ${response.headers.get('X-Request-Id')}`);
      },
    };
    const traced = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN });
    traced.use(tracing);

    await traced.addPlant({ id: 5n, name: 'Fern' });
    const missing = await rejection(traced.getPlant(6n));

    // The service took the middleware's request id, and answered with it.
    expect(missing).toMatchObject({ status: 404, requestId });
    expect(seen).toStrictEqual([
      'POST /plants null',
      `200 ${requestId}`,
      'GET /plants/{id} null',
      `404 ${requestId}`,
    ]);

    traced.eject(tracing);
    await expect(traced.getPlant(5n)).resolves.toStrictEqual({ id: 5n, name: 'Fern' });
    expect(seen).toHaveLength(4);
  });

  it('lets middleware answer a call itself, the answer read as the service’s would be', async () => {
    const cached = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN });
    const sent: string[] = [];
    cached.use(
      {
        onRequest: ({ request }) =>
          request.method === 'GET'
            ? new Response(`{"id":${INT64_MAX},"name":"From the cache"}`, { status: 200 })
            : undefined,
      },
      {
        onRequest({ request }) {
          sent.push(request.method);
        },
      },
    );

    await expect(cached.getPlant(INT64_MAX)).resolves.toStrictEqual({
      id: INT64_MAX,
      name: 'From the cache',
    });
    await expect(cached.addPlant({ id: 1n, name: 'Fern' })).resolves.toStrictEqual({ name: 'Fern' });

    // The first middleware answered the read: the second, and the service, never saw it.
    expect(sent).toStrictEqual(['POST']);
  });

  it('walks every page of a listing, following its Link header, with pages()', async () => {
    for (const id of [1n, 2n, 3n, 4n, BEYOND_DOUBLES]) {
      await client.addPlant({ id, name: `Plant ${id}`, tag: id === 3n ? 'fern' : 'aroid' });
    }

    const pages = await collect(client.pages('/plants', { params: { query: { limit: 2, tag: 'aroid' } } }));

    expect(pages.map((page) => page.map((plant) => plant.id))).toStrictEqual([
      [1n, 2n],
      [4n, BEYOND_DOUBLES],
    ]);
    expect(pages[1][1]).toStrictEqual({ id: BEYOND_DOUBLES, name: `Plant ${BEYOND_DOUBLES}`, tag: 'aroid' });
  });

  it('walks a sorted, filtered list with pages(): sort as one comma-separated list, in repeated, cursors followed', async () => {
    for (const [id, name, tag] of [
      [1n, 'Ivy', 'climber'],
      [2n, 'Fern', 'fern'],
      [3n, 'Moss', undefined],
      [4n, 'Fern', 'aroid'],
      [BEYOND_DOUBLES, 'Aloe', 'succulent'],
    ] as const) {
      await client.addPlant({ id, name, ...(tag ? { tag } : {}) });
    }
    const sent: string[] = [];
    const recordQuery = {
      onRequest: ({ request }: { request: Request }) => void sent.push(new URL(request.url).search),
    };
    client.use(recordQuery);

    const pages = await collect(
      client.pages('/plants', {
        params: { query: { sort: ['-name', 'id'], 'tag[in]': ['fern', 'aroid', 'succulent'], limit: 2 } },
      }),
    );
    client.eject(recordQuery);

    expect(pages.map((page) => page.map((plant) => plant.id))).toStrictEqual([[2n, 4n], [BEYOND_DOUBLES]]);
    expect(sent[0]).toBe('?sort=-name%2Cid&tag[in]=fern&tag[in]=aroid&tag[in]=succulent&limit=2');
    expect(sent[1]).toMatch(/&cursor=[A-Za-z0-9_-]+$/);
    const { response } = await client.GET('/plants', {
      params: { query: { 'name[prefix]': 'F' }, header: { Prefer: 'count=exact' } },
    });
    expect(response.headers.get('Content-Range')).toBe('0-1/2');
    expect(response.headers.get('Preference-Applied')).toBe('count=exact');
  });
});

describe('a token from a function, against a service that takes expiring JWTs', () => {
  const issuer = new JwtIssuer();
  const testApp = useTestApp(() => issuer.serviceEnv, { servers: [issuer] });

  it('is asked for a token for every request, and may answer asynchronously', async () => {
    const issued: string[] = [];
    const client = createPlantStoreClient({
      baseUrl: testApp.url,
      token: async () => {
        const token = await issuer.token({ jti: randomUUID() }, { expiresIn: '1m' });
        issued.push(token);
        return token;
      },
    });

    await client.addPlant({ id: 1n, name: 'Fern' });
    await client.updatePlant(1n, { tag: 'x' });
    await expect(client.getPlant(1n)).resolves.toStrictEqual({ id: 1n, name: 'Fern', tag: 'x' });

    expect(issued).toHaveLength(3);
    expect(new Set(issued).size).toBe(3);
  });

  it('sends the token the function gives now: once an expired one is replaced, calls pass again', async () => {
    let current = await issuer.token({ exp: Math.floor(Date.now() / 1000) - 600 });
    const client = createPlantStoreClient({ baseUrl: testApp.url, token: () => current });

    const expired = await rejection(client.addPlant({ id: 1n, name: 'Fern' }));
    expect(expired).toMatchObject({ status: 401, message: 'The bearer token is invalid or expired' });

    current = await issuer.token();
    await expect(client.addPlant({ id: 1n, name: 'Fern' })).resolves.toStrictEqual({ name: 'Fern' });
  });
});

describe('retries after 429 and 503, against the rate-limited service and a proxy in front of it', () => {
  /** A token per test: each has a budget of its own, one request per window. */
  const tokens = Array.from({ length: 7 }, (_, index) => `retry-test-token-${index}-0123456789`);
  const WINDOW_MS = 2_000;
  const testApp = useTestApp({
    AUTH_TOKENS: [TEST_TOKEN, ...tokens].join(','),
    RATE_LIMIT_PER_TOKEN: '1',
    RATE_LIMIT_TOKEN_WINDOW_MS: String(WINDOW_MS),
  });
  let proxy: UnavailableProxy;

  /** What each attempt was answered, as the client's fetch saw it. */
  interface Attempt {
    readonly status: number;
    readonly retryAfter: string | null;
    readonly at: number;
  }

  /** A client with `token`, whose fetch records each attempt, with its other options as given. */
  function recordingClient(
    token: string,
    options: Partial<PlantStoreClientOptions> = {},
  ): { client: PlantStoreClient; attempts: Attempt[] } {
    const attempts: Attempt[] = [];
    const client = createPlantStoreClient({
      baseUrl: testApp.url,
      token,
      fetch: async (request) => {
        const response = await fetch(request);
        attempts.push({
          status: response.status,
          retryAfter: response.headers.get('Retry-After'),
          at: Date.now(),
        });
        return response;
      },
      ...options,
    });
    return { client, attempts };
  }

  beforeAll(async () => {
    proxy = await UnavailableProxy.start(testApp.url);
  });

  afterAll(async () => {
    await proxy?.stop();
  });

  beforeEach(() => {
    proxy.received.length = 0;
    proxy.unavailable = 0;
  });

  it('waits out the Retry-After of a 429, asks for a token again, and creates the plant once', async () => {
    let tokensAskedFor = 0;
    const { client, attempts } = recordingClient(tokens[0], {
      token: () => {
        tokensAskedFor++;
        return tokens[0];
      },
    });
    await client.addPlant({ id: 1n, name: 'Fern' });

    // POST /plants carries the client's id: sending it again cannot make a second plant.
    await expect(client.addPlant({ id: 2n, name: 'Cactus' })).resolves.toStrictEqual({ name: 'Cactus' });

    expect(attempts.map((attempt) => attempt.status)).toStrictEqual([200, 429, 200]);
    const [, refused, retried] = attempts;
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Not sent again before the service said to (a timer may fire a few milliseconds early by the wall clock).
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(Number(refused.retryAfter) * 1000 - 50);
    expect(tokensAskedFor).toBe(3);
    expect(await plantRow(testApp.db, 2n)).toMatchObject({ name: 'Cactus' });
  });

  it('sends a call that is not idempotent (a PATCH) once, unless told it may be sent again', async () => {
    const { client, attempts } = recordingClient(tokens[1]);
    await client.addPlant({ id: 1n, name: 'Fern' });

    const refused = await rejection(client.updatePlant(1n, { tag: 'x' }));
    expect(refused).toBeInstanceOf(PlantStoreError);
    expect(refused).toMatchObject({ status: 429 });
    expect(attempts.map((attempt) => attempt.status)).toStrictEqual([200, 429]);

    const { client: bolder, attempts: bolderAttempts } = recordingClient(tokens[1], {
      retry: { retryable: (request) => isIdempotent(request) || request.method === 'PATCH' },
    });
    await expect(bolder.updatePlant(1n, { tag: 'x' })).resolves.toMatchObject({ plant: { tag: 'x' } });
    expect(bolderAttempts.map((attempt) => attempt.status)).toStrictEqual([429, 200]);
  });

  it('throws a 429 at once when its Retry-After is longer than maxDelayMs', async () => {
    const { client, attempts } = recordingClient(tokens[2], { retry: { maxDelayMs: 500 } });
    await client.addPlant({ id: 1n, name: 'Fern' });

    const refused = await rejection(client.getPlant(1n));

    expect(refused).toMatchObject({ status: 429, message: expect.stringMatching(/^Too many requests/) });
    expect(attempts.map((attempt) => attempt.status)).toStrictEqual([200, 429]);
  });

  it('sends every call once with retry: false', async () => {
    const { client, attempts } = recordingClient(tokens[3], { retry: false });
    await client.addPlant({ id: 1n, name: 'Fern' });

    await expect(rejection(client.getPlant(1n))).resolves.toMatchObject({ status: 429 });
    expect(attempts.map((attempt) => attempt.status)).toStrictEqual([200, 429]);
  });

  it('sends a call again after a 503 whose Retry-After is a date', async () => {
    const client = createPlantStoreClient({ baseUrl: proxy.url, token: tokens[4] });
    proxy.unavailable = 1;
    proxy.retryAfter = () => new Date(Date.now() + 1000).toUTCString();

    await expect(client.addPlant({ id: 1n, name: 'Fern' })).resolves.toStrictEqual({ name: 'Fern' });

    expect(proxy.received).toStrictEqual(['POST /plants', 'POST /plants']);
    expect(await plantRow(testApp.db, 1n)).toMatchObject({ name: 'Fern' });
  });

  it('throws the last 503 after `attempts` attempts', async () => {
    const client = createPlantStoreClient({ baseUrl: proxy.url, token: tokens[5], retry: { attempts: 2 } });
    proxy.unavailable = 5;
    proxy.retryAfter = () => '0';

    const error = await rejection(client.getPlant(1n));

    expect(error).toMatchObject({ status: 503, message: 'No instance is ready; retry later' });
    expect(proxy.received).toHaveLength(2);
  });

  it('stops waiting to retry when the call’s signal aborts, with its reason', async () => {
    let answered = 0;
    const client = createPlantStoreClient({
      baseUrl: proxy.url,
      token: tokens[6],
      // Longer than the test may take: only the signal can end this wait.
      retry: { maxDelayMs: 600_000 },
      fetch: async (request) => {
        const response = await fetch(request);
        // Counted once the whole answer is in: the client is then waiting to retry, not reading.
        const body = await response.arrayBuffer();
        answered++;
        return new Response(body, response);
      },
    });
    proxy.unavailable = 1;
    proxy.retryAfter = () => '300';
    const controller = new AbortController();
    const reason = new Error('Not worth waiting for');

    const call = rejection(client.getPlant(1n, { signal: controller.signal }));
    await eventually(() => answered === 1);
    controller.abort(reason);

    await expect(call).resolves.toBe(reason);
    expect(proxy.received).toHaveLength(1);
  });
});

describe('the new-plant webhook, verified with the client', () => {
  const secret = webhookSecret();
  const receiver = new WebhookReceiver();
  const testApp = useTestApp(() => receiver.serviceEnv(secret), { servers: [receiver] });

  it('verifies a delivery the service sent for a plant the client created', async () => {
    const client = createPlantStoreClient({ baseUrl: testApp.url, token: TEST_TOKEN });
    await client.addPlant({ id: INT64_MAX, name: 'Fern', tag: 'x' });

    await eventually(() => receiver.received.length > 0);
    const [{ headers, body }] = receiver.received;

    await expect(verifyWebhook({ secret, headers, rawBody: body })).resolves.toStrictEqual({
      id: INT64_MAX,
      name: 'Fern',
      tag: 'x',
    });
    await expect(verifyWebhook({ secret: webhookSecret(), headers, rawBody: body })).rejects.toThrow(
      WebhookVerificationError,
    );
  });
});

describe('verifyWebhook, against the Standard Webhooks reference implementation', () => {
  const secret = webhookSecret();
  const body = `{"id":${INT64_MAX},"name":"Fern","tag":"x"}`;

  /** A delivery of `payload` signed by the `standardwebhooks` package, at `sentAt`. */
  function signed(payload: string, sentAt = new Date(), signingSecret = secret) {
    const id = `msg_${randomUUID()}`;
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(signingSecret).sign(id, sentAt, payload),
    };
  }

  it('accepts a genuine delivery, and gives the plant with its exact id', async () => {
    const headers = signed(body);

    const plant: NewPlant = await verifyWebhook({ secret, headers, rawBody: body });

    expect(plant).toStrictEqual({ id: INT64_MAX, name: 'Fern', tag: 'x' });
    await expect(
      verifyWebhook({ secret, headers: new Headers(headers), rawBody: Buffer.from(body) }),
    ).resolves.toStrictEqual(plant);
  });

  it('accepts a delivery when any one of its signatures matches, as while a secret is rotated', async () => {
    const headers = signed(body);
    const previous = signed(body, new Date(), webhookSecret())['webhook-signature'];

    await expect(
      verifyWebhook({
        secret,
        headers: {
          ...headers,
          'webhook-signature': `${previous} v1a,c29tZQ== ${headers['webhook-signature']}`,
        },
        rawBody: body,
      }),
    ).resolves.toMatchObject({ id: INT64_MAX });
  });

  it('refuses a changed body, a changed id, another secret, a forged or missing signature', async () => {
    const headers = signed(body);
    const refused: VerifyWebhookOptions[] = [
      { secret, headers, rawBody: body.replace('Fern', 'Fern ') },
      { secret, headers: { ...headers, 'webhook-id': 'msg_other' }, rawBody: body },
      { secret: webhookSecret(), headers, rawBody: body },
      { secret, headers: { ...headers, 'webhook-signature': 'v1,bm90IGl0' }, rawBody: body },
      { secret, headers: { ...headers, 'webhook-signature': 'v1,%%%' }, rawBody: body },
      { secret, headers: { ...headers, 'webhook-signature': undefined }, rawBody: body },
    ];

    for (const delivery of refused) {
      await expect(verifyWebhook(delivery)).rejects.toThrow(WebhookVerificationError);
    }
  });

  it('refuses a timestamp further than the tolerance from now, either way', async () => {
    const sixMinutes = 6 * 60 * 1000;
    const old = signed(body, new Date(Date.now() - sixMinutes));
    const future = signed(body, new Date(Date.now() + sixMinutes));

    await expect(verifyWebhook({ secret, headers: old, rawBody: body })).rejects.toThrow(/in the past/);
    await expect(verifyWebhook({ secret, headers: future, rawBody: body })).rejects.toThrow(/in the future/);
    await expect(
      verifyWebhook({ secret, headers: { ...old, 'webhook-timestamp': 'soon' }, rawBody: body }),
    ).rejects.toThrow(WebhookVerificationError);
    await expect(
      verifyWebhook({ secret, headers: old, rawBody: body, toleranceSeconds: 600 }),
    ).resolves.toMatchObject({ name: 'Fern' });
  });

  it('refuses a secret that is not base64', async () => {
    await expect(
      verifyWebhook({ secret: 'whsec_%%%', headers: signed(body), rawBody: body }),
    ).rejects.toThrow(TypeError);
  });
});

describe('int64s in JSON', () => {
  const text = `[{"id":${INT64_MAX},"name":"say \\"id\\": 1","count":12,"ratio":-1.5e3},{"id" : ${INT64_MIN},"name":"i9","tag":"\\\\"},{"\\"id":5,"name":"s","more":{"id":-7}}]`;

  it('are read with every integer exact, from the source text or, where there is none, by marking them first', () => {
    const everyIntegerExact = [
      { id: INT64_MAX, name: 'say "id": 1', count: 12n, ratio: -1500 },
      { id: INT64_MIN, name: 'i9', tag: '\\' },
      { '"id': 5n, name: 's', more: { id: -7n } },
    ];

    expect(parseIntegersWithSourceText(text)).toStrictEqual(everyIntegerExact);
    expect(parseIntegersByQuoting(text)).toStrictEqual(everyIntegerExact);
    expect(parseIntegersByQuoting('{"error":400,"message":"id 12 is taken"}')).toStrictEqual({
      error: 400n,
      message: 'id 12 is taken',
    });
  });

  it('are bigints where the document places an int64, and every other number a number', () => {
    expect(parseJson(text, { items: { ref: 'NewPlant' } })).toStrictEqual([
      { id: INT64_MAX, name: 'say "id": 1', count: 12, ratio: -1500 },
      { id: INT64_MIN, name: 'i9', tag: '\\' },
      { '"id': 5, name: 's', more: { id: -7 } },
    ]);
    const nested = {
      items: {
        anyOf: [
          { ref: 'NewPlant' },
          { properties: { more: { properties: {}, additionalProperties: 'int64' } } },
        ],
      },
    } as const;
    expect(parseJson(text, nested)).toStrictEqual([
      { id: INT64_MAX, name: 'say "id": 1', count: 12, ratio: -1500 },
      { id: INT64_MIN, name: 'i9', tag: '\\' },
      { '"id': 5, name: 's', more: { id: -7n } },
    ]);
    // Where the document places none, it is JSON.parse.
    expect(parseJson(`{"id":${BEYOND_DOUBLES}}`)).toStrictEqual({ id: 2 ** 53 });
  });

  it('are written with every digit', () => {
    expect(stringifyJson({ id: INT64_MAX, name: 'Fern', tag: 'x', skipped: undefined })).toBe(
      '{"id":9223372036854775807,"name":"Fern","tag":"x"}',
    );
    expect(stringifyJson([{ id: INT64_MIN }, 1.5, null, undefined, new Date(0)])).toBe(
      '[{"id":-9223372036854775808},1.5,null,null,"1970-01-01T00:00:00.000Z"]',
    );
  });
});

describe("the client's generated types", () => {
  it('are in step with openapi.yaml', async () => {
    // Fails, naming the command that regenerates them, when openapi.yaml has changed since they were.
    await expect(
      promisify(execFile)(process.execPath, ['clients/typescript/scripts/generate-types.js', '--check']),
    ).resolves.toMatchObject({ stderr: '' });
  });
});

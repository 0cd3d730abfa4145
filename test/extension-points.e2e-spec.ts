import { readFileSync } from 'node:fs';

import request from 'supertest';

import { JSON_BODY_LIMIT_BYTES } from '../src/core/http/json-body.parser.js';
import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';
import { FixtureWidgetsModule } from './fixtures/widgets/widgets.module.js';

const CONTROLLER_FILE = 'widgets.controller.ts';

/**
 * A resource written with Nest's own extension points rather than the
 * platform's (`test/fixtures/widgets/`): a DTO without rules, a custom
 * parameter decorator, the built-in pipes, `ClassSerializerInterceptor`,
 * an interceptor of the team's own and a global one. Each works inside the
 * platform, and the platform's guarantees hold around it.
 */
describe("Nest's extension points inside the platform", () => {
  // info: the HTTP edge's request lines are part of what is checked.
  const testApp = useTestApp({ LOG_LEVEL: 'info' }, { imports: [FixtureWidgetsModule] });

  const post = (path: string, body: string | object) =>
    request(testApp.server)
      .post(path)
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const get = (path: string) => request(testApp.server).get(path).set(AUTH);

  describe('a DTO without validation decorators (what `nest g resource` writes)', () => {
    it('accepts {} and hands the handler an instance of the DTO', async () => {
      const response = await post('/fixture-widgets', {});

      expect(response.status).toBe(201);
      expect(response.body).toStrictEqual({ data: { isDto: true, properties: [], label: 'undefined' } });
    });

    it('refuses a property it does not declare, naming it', async () => {
      const response = await post('/fixture-widgets', { notAField: 1 });

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message: 'property notAField is not allowed' });
    });

    it('keeps the message short for as many unknown keys as a body can hold', async () => {
      const keys = distinctShortKeys(2_300);
      const body = `{${keys.map((key) => `"${key}":0`).join(',')}}`;
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(JSON_BODY_LIMIT_BYTES);

      const response = await post('/fixture-widgets', body);

      expect(response.status).toBe(400);
      expect(response.body.message).toBe(
        `${keys
          .slice(0, 5)
          .map((key) => `property ${key} is not allowed`)
          .join('; ')}; and ${keys.length - 5} more`,
      );
      expect(response.body.message.length).toBeLessThan(300);
    });

    it('answers 413 to 5,000 unknown keys, which no body under the limit can hold', async () => {
      const body = `{${Array.from({ length: 5_000 }, (_, index) => `"k${index}":0`).join(',')}}`;

      const response = await post('/fixture-widgets', body);

      expect(response.status).toBe(413);
      expect(response.body).toStrictEqual({
        error: 413,
        message: `Request body is larger than ${JSON_BODY_LIMIT_BYTES} bytes`,
      });
    });
  });

  describe('a DTO whose property has no rule (`text?: string;`, as the Nest docs first write one)', () => {
    it('accepts {}: the property every instance has is not taken for sent', async () => {
      const response = await post('/fixture-widgets/labels', {});

      expect(response.status).toBe(201);
      expect(response.body).toStrictEqual({ data: { isDto: true, text: null } });
    });

    it('refuses the property when it is sent, having no rule to accept it, and any undeclared one', async () => {
      await expect(post('/fixture-widgets/labels', { text: 'x' })).resolves.toMatchObject({
        status: 400,
        body: { error: 400, message: 'property text is not allowed' },
      });
      await expect(post('/fixture-widgets/labels', { colour: 'red' })).resolves.toMatchObject({
        status: 400,
        body: { error: 400, message: 'property colour is not allowed' },
      });
    });
  });

  describe('__proto__, constructor and prototype, refused in every body at any depth', () => {
    const routes = [
      ['/fixture-widgets', 'a DTO'],
      ['/fixture-widgets/notes', 'Record<string, unknown>'],
      ['/fixture-widgets/raw', "a custom decorator reading req.body, typed 'unknown'"],
    ] as const;
    const bodies = [
      ['{"__proto__": {"x": 1}}', 'property __proto__ is not allowed'],
      ['{"constructor": {}}', 'property constructor is not allowed'],
      ['{"a": {"prototype": 1}}', 'property a.prototype is not allowed'],
      ['{"list": [{"ok": 1}, {"\\u005f_proto__": 1}]}', 'property list[1].__proto__ is not allowed'],
    ] as const;

    it.each(routes)('on %s (%s)', async (path) => {
      for (const [body, message] of bodies) {
        const response = await post(path, body);

        expect({ body, status: response.status }).toStrictEqual({ body, status: 400 });
        expect(response.body).toStrictEqual({ error: 400, message });
      }
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('while the loosely typed routes take any other body as it is', async () => {
      const note = await post('/fixture-widgets/notes', { colour: 'green', nested: { proto: 1 } });
      expect(note.status).toBe(201);
      expect(note.body).toStrictEqual({ data: { keys: ['colour', 'nested'] } });

      const raw = await post('/fixture-widgets/raw', { anything: [1, 'two'] });
      expect(raw.status).toBe(201);
      expect(raw.body).toStrictEqual({ data: { received: { anything: [1, 'two'] } } });
    });
  });

  describe('a custom parameter decorator (createParamDecorator)', () => {
    it('hands the handler undefined when it has nothing, and the route answers', async () => {
      const response = await post('/fixture-widgets', {});

      expect(response.status).toBe(201);
      expect(response.body.data.label).toBe('undefined');
    });

    it('hands over its value untouched when it has one', async () => {
      const response = await post('/fixture-widgets', {}).set('X-Client-Label', 'kiosk-7');

      expect(response.status).toBe(201);
      expect(response.body.data.label).toBe('kiosk-7');
    });
  });

  describe('interceptors', () => {
    it('ClassSerializerInterceptor drops the @Exclude()d field; the own one wraps the answer and sets its header', async () => {
      const response = await get('/fixture-widgets/7');

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-envelope']).toBe('data');
      expect(response.body).toStrictEqual({ data: { id: 7, name: 'widget 7' } });
      expect(response.text).not.toContain('must never leave');
    });

    it("keep @HttpCode() and @Header() with them, a header's own value over the security header's", async () => {
      const response = await post('/fixture-widgets/3/polish', {});

      expect(response.status).toBe(202);
      expect(response.headers['cache-control']).toBe('no-store');
      // Once, not beside SAMEORIGIN; and the other security headers and the request id as on every answer.
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
      expect(response.headers['x-envelope']).toBe('data');
      expect(response.body).toStrictEqual({ data: { id: 3, polished: true } });
    });

    it('let a StreamableFile through as it is', async () => {
      const response = await get('/fixture-widgets/3/manual');

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).toBe('Widget 3: turn clockwise.\n');
    });

    it('a global one (APP_INTERCEPTOR) runs on every route, those of other modules included', async () => {
      const widget = await get('/fixture-widgets/7');
      const plants = await get('/plants?limit=1');

      expect(widget.headers['x-handler']).toBe('FixtureWidgetsController.findOne');
      expect(plants.status).toBe(200);
      expect(plants.headers['x-handler']).toBe('PlantsController.list');
    });

    it('leave the request log line as it was: route, status, request id', async () => {
      const response = await get('/fixture-widgets/11').set('X-Request-Id', 'interceptors-11');

      expect(response.status).toBe(200);
      expect(response.headers['x-request-id']).toBe('interceptors-11');
      expect(testApp.logs.entries()).toContainEqual(
        expect.objectContaining({
          msg: 'request completed',
          reqId: 'interceptors-11',
          method: 'GET',
          route: '/fixture-widgets/:id',
          status: 200,
        }),
      );
    });
  });

  describe("Nest's built-in pipes", () => {
    it.each([
      ['/fixture-widgets/seven', 'Validation failed (numeric string is expected)'],
      ['/fixture-widgets?page=two', 'Validation failed (numeric string is expected)'],
      ['/fixture-widgets?active=maybe', 'Validation failed (boolean string is expected)'],
      ['/fixture-widgets?kind=bolt', 'Validation failed (enum string is expected)'],
      ['/fixture-widgets/by-uuid/not-a-uuid', 'Validation failed (uuid is expected)'],
    ])('%s answers 400 in the Error shape, with the pipe’s own words', async (path, message) => {
      const response = await get(path);

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message });
    });

    it('parse what they are given, and DefaultValuePipe fills what is missing', async () => {
      expect((await get('/fixture-widgets')).body).toStrictEqual({
        data: { page: 1, active: false, kind: null },
      });
      expect((await get('/fixture-widgets?page=3&active=true&kind=gear')).body).toStrictEqual({
        data: { page: 3, active: true, kind: 'gear' },
      });
      const uuid = '4b0f3c4e-8d2a-4f6b-9c1e-2a7d5e9f0b13';
      expect((await get(`/fixture-widgets/by-uuid/${uuid}`)).body).toStrictEqual({ data: { uuid } });
    });
  });

  it('answers an unexpected error with a generic 500, and logs its stack naming the .ts line that threw', async () => {
    const response = await post('/fixture-widgets/4/explode', {}).set('X-Request-Id', 'explode-4');

    expect(response.status).toBe(500);
    expect(response.body).toStrictEqual({ error: 500, message: 'Internal server error' });
    expect(response.text).not.toContain('internal detail');
    const logged = testApp.logs.entries().find((entry) => String(entry.msg).includes('request explode-4'));
    expect(logged).toMatchObject({ level: 'error', context: 'HttpErrorFilter' });
    expect(logged?.stack).toContain('Error: widget 4 exploded: internal detail');
    expect(logged?.stack).toContain(`${CONTROLLER_FILE}:${lineThatThrows()}:`);
  });

  it('needs a token on every route of the resource', async () => {
    const calls = [
      request(testApp.server).post('/fixture-widgets').send({}),
      request(testApp.server).post('/fixture-widgets/notes').send({}),
      request(testApp.server).post('/fixture-widgets/raw').send({}),
      request(testApp.server).get('/fixture-widgets'),
      request(testApp.server).get('/fixture-widgets/by-uuid/4b0f3c4e-8d2a-4f6b-9c1e-2a7d5e9f0b13'),
      request(testApp.server).get('/fixture-widgets/7'),
      request(testApp.server).get('/fixture-widgets/7/manual'),
      request(testApp.server).post('/fixture-widgets/7/polish'),
      request(testApp.server).post('/fixture-widgets/7/explode'),
    ];
    for (const call of calls) {
      const response = await call;
      expect(response.status).toBe(401);
      expect(response.body).toStrictEqual({ error: 401, message: expect.any(String) });
      // Guards run before interceptors: nothing of the resource's ran.
      expect(response.headers['x-handler']).toBeUndefined();
    }
  });
});

/** `count` distinct keys of two characters each, the shortest that many can be. */
function distinctShortKeys(count: number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(
    { length: count },
    (_, index) => `${alphabet[Math.floor(index / alphabet.length)]}${alphabet[index % alphabet.length]}`,
  );
}

/** The line of the fixture controller's `throw`, as its source has it. */
function lineThatThrows(): number {
  const source = readFileSync(new URL(`./fixtures/widgets/${CONTROLLER_FILE}`, import.meta.url), 'utf8');
  return source.split('\n').findIndex((line) => line.includes('throw new Error(`widget ')) + 1;
}

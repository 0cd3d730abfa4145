import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { maxHeaderSize } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { dump, load } from 'js-yaml';
import request from 'supertest';

import { ERROR_DOCUMENTATION } from '../src/core/errors/api-error-responses.decorator.js';
import { contractViolations } from './support/openapi-contract.js';
import { startTestApp, type TestApp } from './support/app.js';
import { truncateAll } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { platformErrorGaps, PLATFORM_ERROR_STATUSES, scopesByOperation } from './support/platform-errors.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

class FixtureWidget {}

/** Controllers as plain as a generator writes them: no OpenAPI decorator, no scope named. */
@Controller('fixture-widgets')
class FixtureWidgetsController {
  @Post()
  create(@Body() widget: FixtureWidget) {
    return widget;
  }

  @Get(':id')
  findOne(@Param('id') id: string) {
    return { id };
  }
}

@Controller()
class WhoAmIController {
  @Get('whoami')
  whoAmI() {
    return {};
  }
}

@Module({ controllers: [FixtureWidgetsController, WhoAmIController] })
class FixtureWidgetsModule {}

describe('OpenAPI document', () => {
  let testApp: TestApp;
  let emitted: Document;

  beforeAll(async () => {
    testApp = await startTestApp();
    emitted = (await request(testApp.server).get('/openapi.json').expect(200)).body as Document;
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('is served without a token as OpenAPI 3.1.0, interface version 1.0.0, MIT', () => {
    expect(emitted.openapi).toBe('3.1.0');
    expect(emitted.info.version).toBe('1.0.0');
    expect(emitted.info.license.name).toBe('MIT');
    expect(emitted.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(emitted.security).toStrictEqual([{ bearerAuth: [] }]);
  });

  it('agrees with the seed on every point the seed states', async () => {
    const reference = load(await readFile('test/contract/seed.openapi.yaml', 'utf8'));

    expect(contractViolations(reference, emitted)).toStrictEqual([]);
  });

  it('catches a departure from the seed (the contract check itself)', async () => {
    const reference = load(await readFile('test/contract/seed.openapi.yaml', 'utf8'));
    const altered = structuredClone(emitted);
    altered.components.schemas.NewPlant.properties.id.format = 'int32';
    altered.components.schemas.Plant.required = ['name', 'tag'];
    delete altered.paths['/plants'].post.responses['400'];

    expect(contractViolations(reference, altered)).toStrictEqual([
      '$.paths./plants.post.responses.400: expected an object',
      '$.components.schemas.Plant.required: expected ["name"], got ["name","tag"]',
      '$.components.schemas.NewPlant.properties.id.format: expected "int64", got "int32"',
    ]);
  });

  it('never declares an id in Plant, and closes NewPlant to unknown properties', () => {
    const { Plant, NewPlant, Error: ErrorSchema } = emitted.components.schemas;

    // Plant is NewPlant without its id, whatever fields a plant has.
    expect(Object.keys(Plant.properties)).toStrictEqual(
      Object.keys(NewPlant.properties).filter((name) => name !== 'id'),
    );
    expect(Plant.properties).not.toHaveProperty('id');
    expect(Object.keys(ErrorSchema.properties)).toStrictEqual(['error', 'message']);
    expect(NewPlant.additionalProperties).toBe(false);
    expect(NewPlant.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(NewPlant.properties.tag).toMatchObject({ minLength: 1, maxLength: 255 });
  });

  it('documents every status POST /plants can answer, each failure with the Error body', () => {
    const responses = emitted.paths['/plants'].post.responses as Document;

    expect(Object.keys(responses).sort()).toStrictEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    for (const [status, response] of Object.entries(responses)) {
      if (status !== '200') {
        expect(response.content['application/json'].schema).toStrictEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('documents reading, changing and deleting, each with the statuses it can answer', () => {
    const { paths } = emitted;
    const statuses = (operation: Document) => Object.keys(operation.responses as object).sort();

    const refusals = ['400', '401', '403', '429', '500', '503'];

    expect(statuses(paths['/plants'].get)).toStrictEqual(['200', ...refusals]);
    expect(statuses(paths['/plants/{id}'].get)).toStrictEqual(['200', '304', ...refusals, '404'].sort());
    expect(statuses(paths['/plants/{id}'].patch)).toStrictEqual(
      ['200', ...refusals, '404', '412', '413', '415', '428'].sort(),
    );
    expect(statuses(paths['/plants/{id}'].delete)).toStrictEqual(
      ['204', ...refusals, '404', '412', '428'].sort(),
    );
    expect(paths['/plants'].get.responses['200'].content['application/json'].schema).toStrictEqual({
      type: 'array',
      maxItems: 100,
      items: { $ref: '#/components/schemas/NewPlant' },
    });
    const headers = paths['/plants'].get.responses['200'].headers as Document;
    expect(headers.Link).toMatchObject({
      required: false,
      schema: { type: 'string', maxLength: expect.any(Number) },
    });
    for (const link of [
      '</plants?limit=20&after=42&tag=aroid>; rel="next"',
      '</plants?sort=-name&name%5Bprefix%5D=Mon&cursor=eyJrIjpbXX0>; rel="next"',
    ]) {
      expect(link).toMatch(new RegExp(headers.Link.schema.pattern as string));
    }
    expect('<https://elsewhere.example/>; rel="next"').not.toMatch(
      new RegExp(headers.Link.schema.pattern as string),
    );
    for (const range of ['0-19/1042', '*/0', '20-39/9223372036854775807']) {
      expect(range).toMatch(new RegExp(headers['Content-Range'].schema.pattern as string));
    }
    expect(headers['Preference-Applied'].schema).toStrictEqual({
      type: 'string',
      enum: ['count=exact', 'count=estimated'],
    });
    const parameters = paths['/plants'].get.parameters as Document[];
    // The list's declaration, parameter by parameter (src/plants/dto/list-plants.query.ts), and Prefer.
    expect(parameters.map((parameter) => `${parameter.in} ${parameter.name}`)).toStrictEqual([
      'query sort',
      'query limit',
      'query cursor',
      'query after',
      ...['id', 'name', 'tag'].flatMap((field) =>
        ['', '[ne]', '[lt]', '[lte]', '[gt]', '[gte]', '[in]']
          .concat(field === 'id' ? [] : ['[prefix]', '[contains]'])
          .concat(field === 'tag' ? ['[null]'] : [])
          .map((operator) => `query ${field}${operator}`),
      ),
      'header Prefer',
    ]);
    expect(parameters.find((parameter) => parameter.name === 'sort')).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', maxItems: 3, items: { enum: ['id', '-id', 'name', '-name', 'tag', '-tag'] } },
    });
    expect(parameters.find((parameter) => parameter.name === 'tag[in]')?.schema).toMatchObject({
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 255 },
    });
    expect(parameters.find((parameter) => parameter.name === 'name[contains]')?.schema).toMatchObject({
      minLength: 3,
    });
    const limit = (paths['/plants'].get.parameters as Document[]).find(
      (parameter) => parameter.name === 'limit',
    );
    expect(limit?.schema).toMatchObject({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(
      (paths['/plants/{id}'].get.parameters as Document[]).find((parameter) => parameter.in === 'path'),
    ).toMatchObject({
      name: 'id',
      in: 'path',
      schema: { type: 'integer', format: 'int64' },
    });
  });

  it('documents PATCH as a merge patch, and the conditional headers of reads and changes', () => {
    const { paths, components } = emitted;
    const parameterNames = (operation: Document) =>
      (operation.parameters as Document[]).map((parameter) => `${parameter.in} ${parameter.name}`).sort();
    const update = paths['/plants/{id}'].patch as Document;

    expect(update.operationId).toBe('updatePlant');
    expect(Object.keys(update.requestBody.content as object)).toStrictEqual([
      'application/merge-patch+json',
      'application/json',
    ]);
    expect(update.requestBody.content['application/merge-patch+json'].schema).toStrictEqual({
      $ref: '#/components/schemas/PlantPatch',
    });
    expect(components.schemas.PlantPatch).toMatchObject({
      additionalProperties: false,
      properties: { tag: { type: ['string', 'null'] }, name: { type: 'string' } },
    });
    expect(components.schemas.PlantPatch.required).toBeUndefined();
    expect(parameterNames(paths['/plants/{id}'].get)).toStrictEqual([
      'header If-Modified-Since',
      'header If-None-Match',
      'path id',
    ]);
    const changeConditions = ['header If-Match', 'header If-Unmodified-Since', 'path id'];
    expect(parameterNames(update)).toStrictEqual(changeConditions);
    expect(parameterNames(paths['/plants/{id}'].delete)).toStrictEqual(changeConditions);
    // The ETag always comes with a versioned read, its 304 and a change, as a quoted version number.
    const etag = {
      description: expect.stringContaining('strong entity tag'),
      required: true,
      schema: {
        type: 'string',
        minLength: 3,
        maxLength: 12,
        pattern: '^"[1-9][0-9]{0,9}"$',
        examples: ['"3"'],
      },
    };
    expect(paths['/plants/{id}'].get.responses['200'].headers.ETag).toStrictEqual(etag);
    expect(paths['/plants/{id}'].get.responses['304'].headers.ETag).toStrictEqual(etag);
    expect(paths['/plants/{id}'].get.responses['304'].content).toBeUndefined();
    expect(update.responses['200'].headers.ETag).toStrictEqual(etag);
    expect(paths['/plants'].get.responses['200'].headers.ETag).toBeUndefined();
    expect(paths['/plants/{id}'].delete.responses['204'].headers.ETag).toBeUndefined();
    // No longer than Node.js lets a request head be: the service sets no shorter limit of its own.
    for (const operation of [paths['/plants/{id}'].get, update, paths['/plants/{id}'].delete] as Document[]) {
      const condition = (operation.parameters as Document[]).find((parameter) => parameter.in === 'header');
      expect(condition?.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: maxHeaderSize });
    }
  });

  it('describes the new-plant webhook in the 3.1 webhooks section', () => {
    const webhook = emitted.webhooks['plant/webhook'].post as Document;

    expect(webhook.requestBody.content['application/json'].schema).toStrictEqual({
      $ref: '#/components/schemas/NewPlant',
    });
    expect((webhook.parameters as Document[]).map((parameter) => parameter.name as string)).toStrictEqual([
      'Webhook-Id',
      'Webhook-Timestamp',
      'Webhook-Signature',
      'Webhook-Event-Type',
    ]);
  });

  it('describes plant.updated and plant.deleted beside it, each with its own event type and body', () => {
    const eventType = (name: string) =>
      ((emitted.webhooks[name].post as Document).parameters as Document[]).find(
        (parameter) => parameter.name === 'Webhook-Event-Type',
      )?.schema.enum as string[];
    const body = (name: string) =>
      (emitted.webhooks[name].post as Document).requestBody.content['application/json'].schema as Document;

    expect(Object.keys(emitted.webhooks as object).sort()).toStrictEqual([
      'plant/deleted',
      'plant/updated',
      'plant/webhook',
    ]);
    expect(eventType('plant/webhook')).toStrictEqual(['plant.created']);
    expect(eventType('plant/updated')).toStrictEqual(['plant.updated']);
    expect(eventType('plant/deleted')).toStrictEqual(['plant.deleted']);
    expect(body('plant/updated')).toStrictEqual({ $ref: '#/components/schemas/NewPlant' });
    expect(body('plant/deleted')).toMatchObject({
      required: ['id'],
      properties: { id: { type: 'integer', format: 'int64' } },
    });
  });

  it("documents the platform's failures on every guarded operation: 401, 429, 500, 503, and 403 for a scope", () => {
    const scopes = scopesByOperation(testApp.app);

    expect(scopes.get('GET /plants/{id}')).toBe('plants:read');
    expect(platformErrorGaps(emitted, scopes)).toStrictEqual([]);
    expect(
      emitted.paths['/plants/{id}'].get.responses['403'].content['application/json'].example,
    ).toStrictEqual({
      error: 403,
      message: 'The bearer token lacks the plants:read scope',
    });
    // Public operations answer none of the guards' failures.
    expect(Object.keys(emitted.paths['/health/live'].get.responses as object)).toStrictEqual(['200']);
  });

  it("catches an operation that lacks one of the platform's failures (the check itself)", () => {
    const altered = structuredClone(emitted);
    delete altered.paths['/plants'].get.responses['429'];
    delete altered.paths['/plants/{id}'].delete.responses['403'];
    altered.paths['/plants'].post.responses['503'].content['application/json'].schema = { type: 'object' };

    expect(platformErrorGaps(altered, scopesByOperation(testApp.app))).toStrictEqual([
      'GET /plants: no 429',
      'POST /plants: 503 is not an Error',
      'DELETE /plants/{id}: no 403',
    ]);
  });

  it('is checked against the committed openapi.yaml by `npm run lint`, which names what differs', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'plant-store-openapi-'));
    const writer = (...args: string[]) =>
      promisify(execFile)(process.execPath, [resolve('dist/core/openapi/write-openapi.js'), ...args], {
        cwd: workDir,
      });
    try {
      await writer();
      await expect(writer('--check')).resolves.toMatchObject({ stderr: '' });
      const stale = load(await readFile(join(workDir, 'openapi.yaml'), 'utf8')) as Document;
      delete stale.paths['/plants/{id}'].delete;
      await writeFile(join(workDir, 'openapi.yaml'), dump(stale));

      await expect(writer('--check')).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /paths\.\/plants\/\{id\}\.delete: not in openapi\.yaml[^]*npm run openapi/,
        ),
      });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('is served as YAML too, with the same content', async () => {
    const response = await request(testApp.server).get('/openapi.yaml').expect(200);

    expect(load(response.text)).toStrictEqual(emitted);
  });

  it('serves the Swagger UI at /docs without a token', async () => {
    const response = await request(testApp.server).get('/docs').expect(200);

    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('swagger-ui');
  });

  it('names where a development instance listens as its server unless PUBLIC_URL says otherwise', async () => {
    const committed = load(await readFile('openapi.yaml', 'utf8')) as Document;

    expect(emitted.servers).toStrictEqual([
      {
        url: 'http://127.0.0.1:3000',
        description: 'The Plant Store at PUBLIC_URL (test)',
        'x-internal': false,
      },
    ]);
    expect(committed.servers).toStrictEqual([
      {
        url: 'http://127.0.0.1:3000',
        description: 'The Plant Store at PUBLIC_URL (local development)',
        'x-internal': false,
      },
    ]);
  });

  it('declares the limits the service enforces: int64 to the last digit, pages, messages, statuses', async () => {
    const text = (await request(testApp.server).get('/openapi.json').expect(200)).text;
    const yaml = (await request(testApp.server).get('/openapi.yaml').expect(200)).text;
    const { schemas } = emitted.components;
    const id =
      /"id":\{"type":"integer","format":"int64","description":"[^"]*","example":10,"minimum":(-?\d+),"maximum":(\d+)\}/.exec(
        text,
      );

    // No double holds 2^63 - 1: the digits are written as they are, in JSON and in YAML.
    expect(id?.slice(1)).toStrictEqual(['-9223372036854775808', '9223372036854775807']);
    expect(yaml).toContain('maximum: 9223372036854775807');
    expect(yaml).toContain('minimum: -9223372036854775808');
    for (const operation of ['get', 'patch', 'delete']) {
      expect(
        (emitted.paths['/plants/{id}'][operation].parameters as Document[]).find(({ name }) => name === 'id'),
      ).toMatchObject({ examples: { created: { value: 10 } }, schema: { type: 'integer', format: 'int64' } });
    }
    expect(schemas.Error.properties.error).toMatchObject({ minimum: 400, maximum: 599 });
    expect(schemas.Error.properties.message).toMatchObject({ minLength: 1, maxLength: 1024 });
    expect(schemas.PlantPatch.properties.id).toMatchObject({ format: 'int64', minimum: -(2 ** 63) });
  });

  it('declares every header the platform sends: X-Request-Id always, the budget where counted, Retry-After, challenges', () => {
    const headers = (path: string, method: string, status: string) =>
      emitted.paths[path][method].responses[status].headers as Document;
    const notCounted = { $ref: '#/components/headers/NotCounted' };

    for (const [path, item] of Object.entries(emitted.paths as Document)) {
      for (const [method, operation] of Object.entries(item as Document)) {
        for (const status of Object.keys((operation as Document).responses as object)) {
          expect({
            at: `${method} ${path} ${status}`,
            id: headers(path, method, status)['X-Request-Id'],
          }).toStrictEqual({
            at: `${method} ${path} ${status}`,
            id: { $ref: '#/components/headers/RequestId' },
          });
        }
      }
    }
    expect(emitted.components.headers.RequestId).toMatchObject({
      required: true,
      schema: { maxLength: 128 },
    });
    expect(headers('/plants', 'post', '200')).toMatchObject({
      RateLimit: { $ref: '#/components/headers/RateLimit' },
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
    });
    expect(headers('/plants', 'post', '429')).toMatchObject({
      RateLimit: { required: true },
      'RateLimit-Policy': { required: true },
      'Retry-After': { required: true, schema: { type: 'integer', minimum: 1 } },
    });
    expect(headers('/plants', 'post', '503')['Retry-After']).toMatchObject({
      required: true,
      schema: { minimum: 1, maximum: 1 },
    });
    expect(headers('/plants', 'post', '401')['WWW-Authenticate']).toStrictEqual({
      description: expect.any(String),
      required: true,
      schema: {
        type: 'string',
        enum: ['Bearer realm="plant-store"', 'Bearer realm="plant-store", error="invalid_token"'],
      },
    });
    expect(headers('/plants', 'post', '403')['WWW-Authenticate'].schema.enum).toStrictEqual([
      'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    ]);
    // Refused before they are counted: the document says the fields are not sent.
    expect(headers('/plants', 'post', '403').RateLimit).toStrictEqual(notCounted);
    expect(headers('/plants', 'post', '413').RateLimit).toStrictEqual(notCounted);
    expect(headers('/health/ready', 'get', '200').RateLimit).toStrictEqual(notCounted);
    expect(emitted.components.headers.NotCounted.schema).toStrictEqual({ not: {} });
    const budget = new RegExp(emitted.components.headers.RateLimit.schema.pattern as string);
    expect('"token";r=99958;t=17').toMatch(budget);
    expect('"auth-failures";r=0;t=60').toMatch(budget);
    expect('token;r=1').not.toMatch(budget);
  });

  describe('against the answers the service gives', () => {
    const examplePlant = () =>
      Object.fromEntries(
        Object.entries(emitted.components.schemas.NewPlant.properties as Document).map(([name, property]) => [
          name,
          property.example,
        ]),
      );

    beforeAll(async () => {
      await truncateAll(testApp.db);
    });

    /**
     * The documented response of this answer: each header it marks required is
     * there, in its declared form; one it says is never sent is not.
     */
    function conforms(path: string, method: string, answer: { status: number; headers: Headers }): void {
      const documented = emitted.paths[path][method].responses[String(answer.status)] as Document | undefined;
      expect({ path, method, status: answer.status, documented: documented !== undefined }).toStrictEqual({
        path,
        method,
        status: answer.status,
        documented: true,
      });
      for (const [name, declared] of Object.entries((documented?.headers ?? {}) as Document)) {
        const header = (
          declared.$ref ? emitted.components.headers[String(declared.$ref).split('/').pop()!] : declared
        ) as Document;
        const value = answer.headers.get(name);
        const at = `${method} ${path} ${answer.status} ${name}`;
        if (header.schema.not) {
          expect({ at, value }).toStrictEqual({ at, value: null });
          continue;
        }
        if (header.required) {
          expect({ at, sent: value !== null }).toStrictEqual({ at, sent: true });
        }
        if (value === null) {
          continue;
        }
        const { pattern, maxLength, enum: values, type, minimum, maximum } = header.schema as Document;
        if (type === 'integer') {
          expect({ at, value }).toStrictEqual({ at, value: expect.stringMatching(/^\d+$/) });
          expect(Number(value)).toBeGreaterThanOrEqual(Number(minimum));
          expect(Number(value)).toBeLessThanOrEqual(Number(maximum));
          continue;
        }
        if (pattern) {
          expect({ at, value }).toStrictEqual({
            at,
            value: expect.stringMatching(new RegExp(pattern as string)),
          });
        }
        if (values) {
          expect(values).toContain(value);
        }
        if (maxLength !== undefined) {
          expect(value.length).toBeLessThanOrEqual(Number(maxLength));
        }
      }
    }

    async function call(
      method: string,
      path: string,
      {
        token = TEST_TOKEN,
        body,
        headers = {},
      }: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
    ) {
      const template = path.replace(/\?.*$/, '').replace(/\/\d+$/, '/{id}');
      const answer = await fetch(`${testApp.url}${path}`, {
        method: method.toUpperCase(),
        headers: {
          ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await answer.text();
      conforms(template, method, answer);
      return {
        status: answer.status,
        headers: answer.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
    }

    it('accepts its own examples, in turn: create the example plant, read, patch and delete it by the example id', async () => {
      const id = (emitted.paths['/plants/{id}'].get.parameters as Document[]).find(
        ({ name }) => name === 'id',
      )!.examples.created.value as number;
      const patches = emitted.paths['/plants/{id}'].patch.requestBody.content['application/merge-patch+json']
        .examples as Document;

      expect(examplePlant().id).toBe(id);
      await expect(call('post', '/plants', { body: examplePlant() })).resolves.toMatchObject({ status: 200 });
      await expect(call('get', `/plants/${id}`)).resolves.toMatchObject({
        status: 200,
        body: examplePlant(),
      });
      for (const [name, example] of Object.entries(patches)) {
        expect({ name, id: 'id' in (example.value as object) }).toStrictEqual({ name, id: false });
        await expect(
          call('patch', `/plants/${id}`, {
            body: example.value,
            headers: { 'Content-Type': 'application/merge-patch+json' },
          }),
        ).resolves.toMatchObject({ status: 200 });
      }
      await expect(call('delete', `/plants/${id}`)).resolves.toMatchObject({ status: 204 });
    });

    it('sends every header it documents as always sent, in its declared form, and none it says is never sent', async () => {
      const id = examplePlant().id as number;
      await call('post', '/plants', { body: examplePlant() });
      const read = await call('get', `/plants/${id}`);
      const etag = read.headers.get('etag')!;
      const answers = [
        read,
        await call('get', `/plants/${id}`, { headers: { 'If-None-Match': etag } }),
        await call('get', '/plants?limit=1'),
        await call('get', '/plants/424242'),
        await call('post', '/plants', { body: { ...examplePlant(), name: 'Another' } }),
        await call('post', '/plants', { body: { id: 11 } }),
        await call('post', '/plants', { body: 'x'.repeat(17_000) }),
        await call('post', '/plants', { body: 'name=x', headers: { 'Content-Type': 'text/plain' } }),
        await call('post', '/plants', { token: null, body: examplePlant() }),
        await call('post', '/plants', { token: 'not-a-token-0123456789', body: examplePlant() }),
        await call('patch', `/plants/${id}`, { body: { tag: 'x' }, headers: { 'If-Match': '"99"' } }),
        await call('patch', `/plants/${id}`, { body: { tag: 'x' }, headers: { 'If-Match': etag } }),
        await call('delete', `/plants/${id}`),
        await call('get', '/health/live', { token: null }),
        await call('get', '/health/ready', { token: null }),
      ];

      expect(answers.map(({ status }) => status)).toStrictEqual([
        200, 304, 200, 404, 409, 400, 413, 415, 401, 401, 412, 200, 204, 200, 200,
      ]);
      // The probes answer the bodies the document shows.
      const example = (path: string): unknown =>
        emitted.paths[path].get.responses['200'].content['application/json'].example;
      const database = { status: 'up', responseTime: expect.any(Number) as number };
      expect(answers[13].body).toStrictEqual(example('/health/live'));
      expect(example('/health/ready')).toStrictEqual({
        ...(answers[14].body as object),
        info: { database },
        details: { database },
      });
      expect(answers[14].body).toStrictEqual({
        status: 'ok',
        info: { database },
        error: {},
        details: { database },
      });
    });
  });

  describe('of a controller that declares nothing for it', () => {
    let widgetsApp: TestApp;
    let document: Document;

    beforeAll(async () => {
      widgetsApp = await startTestApp(
        { PUBLIC_URL: 'https://plants.example.com/store/' },
        { imports: [FixtureWidgetsModule] },
      );
      document = (await request(widgetsApp.server).get('/openapi.json').expect(200)).body as Document;
    });

    afterAll(async () => {
      await widgetsApp.close();
    });

    it("still documents the platform's failures, worded as the platform words them", () => {
      const responses = document.paths['/fixture-widgets'].post.responses as Document;

      expect(platformErrorGaps(document, scopesByOperation(widgetsApp.app))).toStrictEqual([]);
      expect(Object.keys(responses)).toStrictEqual(['201', '401', '403', '429', '500', '503']);
      for (const status of PLATFORM_ERROR_STATUSES) {
        const documentation = ERROR_DOCUMENTATION[Number(status) as keyof typeof ERROR_DOCUMENTATION]!;
        expect(responses[status]).toStrictEqual({
          description: documentation.description,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error' },
              example: { error: Number(status), message: documentation.example },
            },
          },
          headers: expect.objectContaining({ 'X-Request-Id': { $ref: '#/components/headers/RequestId' } }),
        });
      }
      expect(responses['401'].headers['WWW-Authenticate']).toMatchObject({ required: true });
      expect(responses['429'].headers['Retry-After']).toMatchObject({ required: true });
      expect(responses['503'].headers['Retry-After']).toMatchObject({ required: true });
      expect(responses['403'].content['application/json'].example.message).toBe(
        'The bearer token lacks the fixture-widgets:write scope',
      );
      expect(
        document.paths['/fixture-widgets/{id}'].get.responses['403'].content['application/json'].example
          .message,
      ).toBe('The bearer token lacks the fixture-widgets:read scope');
    });

    it('names the server PUBLIC_URL says clients reach, for the environment it runs in', () => {
      expect(document.servers).toStrictEqual([
        {
          url: 'https://plants.example.com/store',
          description: 'The Plant Store at PUBLIC_URL (test)',
          'x-internal': false,
        },
      ]);
    });

    it('documents no 403 on a route outside any resource, which needs no scope', async () => {
      expect(Object.keys(document.paths['/whoami'].get.responses as object)).toStrictEqual([
        '200',
        '401',
        '429',
        '500',
        '503',
      ]);
      await request(widgetsApp.server).get('/whoami').expect(401);
    });
  });
});

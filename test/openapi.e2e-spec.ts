import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { dump, load } from 'js-yaml';
import request from 'supertest';

import { ERROR_DOCUMENTATION } from '../src/core/errors/api-error-responses.decorator.js';
import { contractViolations } from './support/openapi-contract.js';
import { startTestApp, type TestApp } from './support/app.js';
import { platformErrorGaps, PLATFORM_ERROR_STATUSES, scopesByOperation } from './support/platform-errors.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

class Widget {}

/** Controllers as plain as a generator writes them: no OpenAPI decorator, no scope named. */
@Controller('widgets')
class WidgetsController {
  @Post()
  create(@Body() widget: Widget) {
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

@Module({ controllers: [WidgetsController, WhoAmIController] })
class WidgetsModule {}

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

    expect(Object.keys(Plant.properties)).toStrictEqual(['name', 'tag']);
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
      items: { $ref: '#/components/schemas/NewPlant' },
    });
    expect(paths['/plants'].get.responses['200'].headers.Link).toBeDefined();
    expect(
      (paths['/plants'].get.parameters as Document[]).map((parameter) => parameter.name as string).sort(),
    ).toStrictEqual(['after', 'limit', 'tag']);
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
    expect(parameterNames(paths['/plants/{id}'].get)).toStrictEqual(['header If-None-Match', 'path id']);
    expect(parameterNames(update)).toStrictEqual(['header If-Match', 'path id']);
    expect(parameterNames(paths['/plants/{id}'].delete)).toStrictEqual(['header If-Match', 'path id']);
    expect(paths['/plants/{id}'].get.responses['200'].headers.ETag).toBeDefined();
    expect(paths['/plants/{id}'].get.responses['304'].content).toBeUndefined();
    expect(update.responses['200'].headers.ETag).toBeDefined();
    expect(paths['/plants'].get.responses['200'].headers.ETag).toBeUndefined();
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

  describe('of a controller that declares nothing for it', () => {
    let widgetsApp: TestApp;
    let document: Document;

    beforeAll(async () => {
      widgetsApp = await startTestApp({}, { imports: [WidgetsModule] });
      document = (await request(widgetsApp.server).get('/openapi.json').expect(200)).body as Document;
    });

    afterAll(async () => {
      await widgetsApp.close();
    });

    it("still documents the platform's failures, worded as the platform words them", () => {
      const responses = document.paths['/widgets'].post.responses as Document;

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
        });
      }
      expect(responses['403'].content['application/json'].example.message).toBe(
        'The bearer token lacks the widgets:write scope',
      );
      expect(
        document.paths['/widgets/{id}'].get.responses['403'].content['application/json'].example.message,
      ).toBe('The bearer token lacks the widgets:read scope');
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

import { readFile } from 'node:fs/promises';

import { load } from 'js-yaml';
import request from 'supertest';

import { contractViolations } from './support/openapi-contract.js';
import { startTestApp, type TestApp } from './support/app.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

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

  it('documents reading and deleting, each with the statuses it can answer', () => {
    const { paths } = emitted;
    const statuses = (operation: Document) => Object.keys(operation.responses as object).sort();

    const refusals = ['400', '401', '403', '429', '500', '503'];

    expect(statuses(paths['/plants'].get)).toStrictEqual(['200', ...refusals]);
    expect(statuses(paths['/plants/{id}'].get)).toStrictEqual(['200', ...refusals, '404'].sort());
    expect(statuses(paths['/plants/{id}'].delete)).toStrictEqual(['204', ...refusals, '404'].sort());
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
    expect(paths['/plants/{id}'].get.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      schema: { type: 'integer', format: 'int64' },
    });
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

  it('matches the committed openapi.yaml (run `npm run openapi` after changing the API)', async () => {
    const committed = load(await readFile('openapi.yaml', 'utf8'));

    expect(committed).toStrictEqual(emitted);
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
});

import { jest } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';

import { bigintAsNumber } from './json.js';
import { JsonExpressAdapter } from './json-express.adapter.js';

class Answer {
  constructor(readonly id: bigint) {}
}

describe('JsonExpressAdapter', () => {
  const adapter = new JsonExpressAdapter();
  const app = adapter.getInstance<Express>();
  app.set('json replacer', bigintAsNumber);
  app.get('/plain', (_request, response) => adapter.reply(response, { id: 7, name: 'Fern' }, 200));
  app.get('/list', (_request, response) => adapter.reply(response, [{ id: 7 }, { id: 8, tag: 'moss' }]));
  app.get('/bigint', (_request, response) => adapter.reply(response, { id: 2n ** 63n - 1n }, 201));
  app.get('/instance', (_request, response) => adapter.reply(response, new Answer(2n ** 62n), 200));

  afterEach(() => jest.restoreAllMocks());

  it('writes a plain answer with one JSON.stringify and no replacer, as res.json() would answer it', async () => {
    const stringify = jest.spyOn(JSON, 'stringify');

    const answer = await request(app).get('/plain');

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.text).toBe('{"id":7,"name":"Fern"}');
    expect(stringify.mock.calls).toStrictEqual([[{ id: 7, name: 'Fern' }]]);
  });

  it('writes a list as it is', async () => {
    const answer = await request(app).get('/list');

    expect(answer.text).toBe('[{"id":7},{"id":8,"tag":"moss"}]');
  });

  it('writes a bigint with every digit, with the status given', async () => {
    const answer = await request(app).get('/bigint');

    expect(answer.status).toBe(201);
    expect(answer.text).toBe('{"id":9223372036854775807}');
  });

  it('leaves a class instance to Nest’s own reply, through res.json() and its replacer', async () => {
    const answer = await request(app).get('/instance');

    expect(answer.text).toBe('{"id":4611686018427387904}');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { plantRow, plantRows, truncatePlants } from './support/database.js';
import { startTestApp, type TestApp } from './support/app.js';

describe('POST /plants', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });

  afterAll(async () => {
    await testApp.close();
  });

  beforeEach(async () => {
    await truncatePlants(testApp.db);
  });

  const post = (body: unknown) =>
    request(testApp.url)
      .post('/plants')
      .set(AUTH)
      .send(body as object);

  it('stores a plant and answers 200 with the Plant shape: name and tag, never id', async () => {
    const body = newPlant({ id: 42, name: 'Monstera deliciosa', tag: 'aroid' });

    const response = await post(body);

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toStrictEqual({ name: 'Monstera deliciosa', tag: 'aroid' });
    await expect(plantRows(testApp.db)).resolves.toStrictEqual([
      { id: '42', name: 'Monstera deliciosa', tag: 'aroid' },
    ]);
  });

  it('leaves tag out of the answer, rather than null, when none was sent', async () => {
    const response = await post(newPlant({ id: 7, tag: undefined }));

    expect(response.status).toBe(200);
    expect(response.body).toStrictEqual({ name: 'Monstera deliciosa' });
    await expect(plantRow(testApp.db, 7)).resolves.toStrictEqual({
      id: '7',
      name: 'Monstera deliciosa',
      tag: null,
    });
  });
});

import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { plantRow, plantRows } from './support/database.js';
import { useTestApp } from './support/app.js';
import { TEST_TOKEN_ACTOR } from './support/environment.js';
import { eventually } from './support/eventually.js';

describe('POST /plants', () => {
  const testApp = useTestApp();

  const post = (body: unknown) =>
    request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .send(body as object);

  /** The row's version: it changes with any write to the row. */
  async function rowVersion(id: number): Promise<string | undefined> {
    const { rows } = await testApp.db.query<{ xmin: string }>('SELECT xmin::text FROM plants WHERE id = $1', [
      id,
    ]);
    return rows[0]?.xmin;
  }

  it('stores a plant and answers 200 with the Plant shape: name and tag, never id', async () => {
    const response = await post(newPlant({ id: 42, name: 'Monstera deliciosa', tag: 'aroid' }));

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

  it('answers the same plant sent again with 200 and the same body, and writes nothing', async () => {
    const plant = newPlant({ id: 5 });
    const first = await post(plant);
    const version = await rowVersion(5);

    const again = await post(plant);

    expect(again.status).toBe(200);
    expect(again.body).toStrictEqual(first.body);
    await expect(rowVersion(5)).resolves.toBe(version);
    await expect(plantRows(testApp.db)).resolves.toHaveLength(1);
  });

  it('refuses another plant under a taken id with 409, and leaves the stored one as it was', async () => {
    await post(newPlant({ id: 6, name: 'Fern', tag: 'pteridophyte' }));
    const version = await rowVersion(6);

    for (const other of [
      { id: 6, name: 'Moss', tag: 'pteridophyte' },
      { id: 6, name: 'Fern' },
      { id: 6, name: 'Fern', tag: 'fern' },
    ]) {
      const response = await post(other);

      expect(response.status).toBe(409);
      expect(response.body).toStrictEqual({
        error: 409,
        message: 'Plant id 6 is already taken by a plant with a different name or tag',
      });
    }
    await expect(rowVersion(6)).resolves.toBe(version);
    await expect(plantRow(testApp.db, 6)).resolves.toStrictEqual({
      id: '6',
      name: 'Fern',
      tag: 'pteridophyte',
    });
  });

  it('keeps any Unicode exactly: emoji, combining marks, other scripts, no trimming', async () => {
    const name = '  Rosa \u0301 🌹 ✿ 玫瑰 وردة  ';
    const tag = 'e\u0301 ≠ é';

    const response = await post({ id: 8, name, tag });

    expect(response.body).toStrictEqual({ name, tag });
    await expect(plantRow(testApp.db, 8)).resolves.toStrictEqual({ id: '8', name, tag });
  });

  it('hides an unexpected fault behind a generic 500, and logs it with the request id', async () => {
    await testApp.db.query('ALTER TABLE plants RENAME TO plants_hidden');
    try {
      const response = await post(newPlant()).set('X-Request-Id', 'fault-under-test-1');

      expect(response.status).toBe(500);
      expect(response.body).toStrictEqual({ error: 500, message: 'Internal server error' });
      expect(JSON.stringify(response.body)).not.toContain('plants');
      await eventually(() => testApp.logs.text().includes('fault-under-test-1'));
      expect(testApp.logs.text()).toContain('relation \\"plants\\" does not exist');
      // The filter's line carries the request's context as fields, like every line written for it.
      expect(testApp.logs.entries()).toContainEqual(
        expect.objectContaining({
          level: 'error',
          context: 'HttpErrorFilter',
          reqId: 'fault-under-test-1',
          principal: TEST_TOKEN_ACTOR,
        }),
      );
    } finally {
      await testApp.db.query('ALTER TABLE plants_hidden RENAME TO plants');
    }
  });
});

import request from 'supertest';

import { startTestApp, type TestApp } from './support/app.js';
import { truncateAll } from './support/database.js';
import { AUTH } from './support/factories.js';

/**
 * What the fast read path (prepared statements on the pool, no query
 * builder) could break, under concurrency: reads racing writes, and many
 * reads at once.
 */
describe('reads under concurrency', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });

  afterAll(async () => {
    await testApp.close();
  });

  beforeEach(async () => {
    await truncateAll(testApp.db);
  });

  const seed = (ids: number[]) =>
    testApp.db.query(
      `INSERT INTO plants (id, name, tag) SELECT g, 'Plant ' || g, CASE WHEN g % 2 = 0 THEN 'even' END
       FROM unnest($1::bigint[]) AS g`,
      [ids],
    );

  it('answers a read racing a delete with the whole plant or 404, never anything else', async () => {
    const ids = Array.from({ length: 50 }, (_, index) => index + 1);
    await seed(ids);

    const outcomes = await Promise.all(
      ids.flatMap((id) => [
        request(testApp.server).get(`/plants/${id}`).set(AUTH),
        request(testApp.server).delete(`/plants/${id}`).set(AUTH),
        request(testApp.server).get(`/plants/${id}`).set(AUTH),
      ]),
    );

    for (const [index, response] of outcomes.entries()) {
      const id = ids[Math.floor(index / 3)];
      if (index % 3 === 1) {
        expect(response.status).toBe(204);
      } else if (response.status === 200) {
        expect(response.body).toStrictEqual(
          id % 2 === 0 ? { id, name: `Plant ${id}`, tag: 'even' } : { id, name: `Plant ${id}` },
        );
      } else {
        expect(response.body).toStrictEqual({ error: 404, message: `No plant has the id ${id}` });
      }
    }
    const { rows } = await testApp.db.query('SELECT 1 FROM plants');
    expect(rows).toHaveLength(0);
  });

  it('answers many reads at once, some of missing ids, each with its own plant or 404', async () => {
    await seed(Array.from({ length: 100 }, (_, index) => index * 2));

    const ids = Array.from({ length: 200 }, (_, index) => index);
    const responses = await Promise.all(
      ids.map((id) => request(testApp.server).get(`/plants/${id}`).set(AUTH)),
    );

    for (const [id, response] of responses.entries()) {
      expect({ id, status: response.status }).toStrictEqual({ id, status: id % 2 === 0 ? 200 : 404 });
      if (id % 2 === 0) {
        expect(response.body).toStrictEqual({ id, name: `Plant ${id}`, tag: 'even' });
      }
    }
  });

  it('walks every page once while plants are created behind and ahead of the walk', async () => {
    const existing = Array.from({ length: 200 }, (_, index) => (index + 1) * 10);
    await seed(existing);

    const seen: number[] = [];
    let next: string | undefined = '/plants?limit=7';
    let created = 0;
    while (next) {
      const [page]: request.Response[] = await Promise.all([
        request(testApp.server).get(next).set(AUTH),
        // Meanwhile, new plants: one behind the walk, one ahead of it.
        request(testApp.server)
          .post('/plants')
          .set(AUTH)
          .send({ id: 1 + created * 10, name: 'Behind' }),
        request(testApp.server)
          .post('/plants')
          .set(AUTH)
          .send({ id: 5 + (created + 150) * 10, name: 'Ahead' }),
      ]);
      created++;
      expect(page.status).toBe(200);
      seen.push(...(page.body as Array<{ id: number }>).map((plant) => plant.id));
      next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    }

    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toStrictEqual(seen);
    expect(existing.filter((id) => !seen.includes(id))).toStrictEqual([]);
  });
});

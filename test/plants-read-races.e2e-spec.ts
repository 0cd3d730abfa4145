import request from 'supertest';

import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';

/**
 * What the batched reads (`PlantsRepository`: many requests answered by one
 * statement) could break, under concurrency: reads racing writes, and many
 * reads and pages at once.
 */
describe('reads under concurrency', () => {
  // 50 deletes at once share the pool's 10 connections: on a machine busy with other suites,
  // the last could wait past the default 500 ms for one (503), which is not what is tested here.
  const testApp = useTestApp({ DATABASE_CONNECT_TIMEOUT_MS: '5000' });

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

  it('answers many pages at once (starts, sizes, tags; some empty, some alike), each with its own page', async () => {
    const ids = Array.from({ length: 120 }, (_, index) => index + 1);
    await seed(ids);

    const pages = [undefined, 0, 5, 17, 60, 119, 120, 500].flatMap((after) =>
      [1, 7, 20].flatMap((limit) => [undefined, 'even', 'none'].map((tag) => ({ after, limit, tag }))),
    );
    const asked = [...pages, ...pages.slice(0, 10)];
    const responses = await Promise.all(
      asked.map(({ after, limit, tag }) =>
        request(testApp.server)
          .get('/plants')
          .query({ limit, ...(after === undefined ? {} : { after }), ...(tag === undefined ? {} : { tag }) })
          .set(AUTH),
      ),
    );

    for (const [index, response] of responses.entries()) {
      const { after, limit, tag } = asked[index];
      const matching = ids.filter(
        (id) => id > (after ?? 0) && (tag === undefined || (tag === 'even' && id % 2 === 0)),
      );
      const expected = matching
        .slice(0, limit)
        .map((id) => (id % 2 === 0 ? { id, name: `Plant ${id}`, tag: 'even' } : { id, name: `Plant ${id}` }));
      expect({ ...asked[index], status: response.status, body: response.body as unknown }).toStrictEqual({
        ...asked[index],
        status: 200,
        body: expected,
      });
      expect(response.headers.link !== undefined).toBe(matching.length > limit);
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

import request from 'supertest';
import { DataSource } from 'typeorm';

import { AUTH, parseWithBigInts } from './support/factories.js';
import { JwtIssuer } from './support/jwt-issuer.js';
import { startTestApp, useTestApp } from './support/app.js';

const ID_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

describe('reading and deleting plants', () => {
  const issuer = new JwtIssuer();
  const testApp = useTestApp(() => issuer.serviceEnv, { servers: [issuer] });

  /** Stores plants directly, ids given as exact digits. */
  async function seed(...plants: Array<[id: string, name: string, tag?: string]>): Promise<void> {
    for (const [id, name, tag] of plants) {
      await testApp.db.query('INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3)', [
        id,
        name,
        tag ?? null,
      ]);
    }
  }

  const get = (path: string) => request(testApp.server).get(path).set(AUTH);

  /** The ids of a listing page, in the order they were answered. */
  const idsOf = (page: request.Response): number[] =>
    (page.body as Array<{ id: number }>).map((plant) => plant.id);

  describe('GET /plants/{id}', () => {
    it('answers the plant with its id, every digit of it, beyond 2^53 too', async () => {
      await seed(
        ['9223372036854775807', 'Big one', 'giant'],
        ['9007199254740993', 'Just past 2^53'],
        ['-5', 'Negative'],
      );

      for (const [id, expected] of [
        ['9223372036854775807', '{"id":9223372036854775807,"name":"Big one","tag":"giant"}'],
        ['9007199254740993', '{"id":9007199254740993,"name":"Just past 2^53"}'],
        ['-5', '{"id":-5,"name":"Negative"}'],
      ]) {
        const response = await get(`/plants/${id}`)
          .buffer(true)
          .parse((res, done) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => done(null, text));
          });
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.body).toBe(expected);
      }
    });

    it('answers 404 for an id nobody has, and 400 naming id for one that is no int64', async () => {
      const missing = await get('/plants/42');
      expect(missing.status).toBe(404);
      expect(missing.body).toStrictEqual({ error: 404, message: 'No plant has the id 42' });

      for (const bad of ['abc', '1.5', '1e3', '9223372036854775808', '-9223372036854775809', '%20']) {
        const response = await get(`/plants/${bad}`);
        expect({ bad, status: response.status }).toStrictEqual({ bad, status: 400 });
        expect(response.body).toStrictEqual({ error: 400, message: `id ${ID_RULE}` });
      }
    });
  });

  describe('GET /plants', () => {
    it('answers the plants in id order, each with its id, 20 at most by default', async () => {
      await seed(['3', 'C'], ['1', 'A', 'first'], ['2', 'B']);

      const response = await get('/plants');

      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual([
        { id: 1, name: 'A', tag: 'first' },
        { id: 2, name: 'B' },
        { id: 3, name: 'C' },
      ]);
      expect(response.headers.link).toBeUndefined();
    });

    it("opens its sessions with a DATABASE_URL's own session options", async () => {
      const withOptions = (options: string) => {
        const url = new URL(process.env.DATABASE_URL ?? '');
        url.searchParams.set('options', options);
        return url.toString();
      };
      const settingsOf = async (options: string) => {
        const other = await startTestApp({ DATABASE_URL: withOptions(options) });
        try {
          const [row] = await other.app
            .get(DataSource)
            .query<Array<{ work_mem: string }>>("SELECT current_setting('work_mem') AS work_mem");
          return row;
        } finally {
          await other.close();
        }
      };

      expect(await settingsOf('-c work_mem=8MB')).toStrictEqual({ work_mem: '8MB' });
      expect(await settingsOf('-c work_mem=12MB')).toStrictEqual({ work_mem: '12MB' });
    });

    it('closes pooled connections idle for DATABASE_POOL_IDLE_TIMEOUT_MS, and keeps them with 0', async () => {
      const pooledAfterIdle = async (idleTimeoutMs: string) => {
        const other = await startTestApp({ DATABASE_POOL_IDLE_TIMEOUT_MS: idleTimeoutMs });
        try {
          const dataSource = other.app.get(DataSource);
          // Three at once: three connections.
          await Promise.all(Array.from({ length: 3 }, () => dataSource.query('SELECT pg_sleep(0.05)')));
          await new Promise((resolve) => setTimeout(resolve, 800));
          return (dataSource.driver as unknown as { master: { totalCount: number } }).master.totalCount;
        } finally {
          await other.close();
        }
      };

      expect(await pooledAfterIdle('200')).toBe(0);
      expect(await pooledAfterIdle('0')).toBeGreaterThanOrEqual(3);
    });

    it('pages with `after` and a Link to the next page, and says nothing past the last', async () => {
      await seed(
        ...Array.from(
          { length: 25 },
          (_, index) => [String(index + 1), `Plant ${index + 1}`] as [string, string],
        ),
      );

      const first = await get('/plants');
      expect(first.body).toHaveLength(20);
      expect(first.headers.link).toBe('</plants?after=20>; rel="next"');

      const second = await get('/plants?after=20');
      expect(idsOf(second)).toStrictEqual([21, 22, 23, 24, 25]);
      expect(second.headers.link).toBeUndefined();

      const small = await get('/plants?limit=10&after=5');
      expect(idsOf(small)).toStrictEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
      expect(small.headers.link).toBe('</plants?limit=10&after=15>; rel="next"');
    });

    it('filters by tag, exactly, and keeps the tag in the next page link', async () => {
      await seed(['1', 'A', 'fern'], ['2', 'B', 'Fern'], ['3', 'C', 'fern'], ['4', 'D'], ['5', 'E', 'fern']);

      const page = await get('/plants?tag=fern&limit=2');

      expect(page.body).toStrictEqual([
        { id: 1, name: 'A', tag: 'fern' },
        { id: 3, name: 'C', tag: 'fern' },
      ]);
      expect(page.headers.link).toBe('</plants?limit=2&after=3&tag=fern>; rel="next"');
      await expect(
        get('/plants?limit=2&after=3&tag=fern').then((res) => res.body as unknown),
      ).resolves.toStrictEqual([{ id: 5, name: 'E', tag: 'fern' }]);
    });

    it('keeps ids beyond 2^53 exact in a list, and pages past them', async () => {
      await seed(['9007199254740993', 'A'], ['9007199254740994', 'B']);

      const response = await request(testApp.server)
        .get('/plants?limit=1')
        .set(AUTH)
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(null, text));
        });

      expect(response.body).toBe('[{"id":9007199254740993,"name":"A"}]');
      expect(response.headers.link).toBe('</plants?limit=1&after=9007199254740993>; rel="next"');
      const next = await get('/plants?limit=1&after=9007199254740993')
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => done(null, text));
        });
      expect(parseWithBigInts(next.body as string)).toStrictEqual([{ id: 9007199254740994n, name: 'B' }]);
    });

    it.each([
      ['limit=0', 'limit must be an integer from 1 to 100'],
      ['limit=101', 'limit must be an integer from 1 to 100'],
      ['limit=abc', 'limit must be an integer from 1 to 100'],
      ['limit=2.5', 'limit must be an integer from 1 to 100'],
      ['limit=', 'limit must be an integer from 1 to 100'],
      ['limit=1&limit=2', 'limit must be an integer from 1 to 100'],
      ['after=x', `after ${ID_RULE}`],
      ['after=9223372036854775808', `after ${ID_RULE}`],
      ['tag=', 'tag must be a string of 1 to 255 characters'],
      ['offset=10', 'query parameter offset is not allowed'],
    ])('refuses ?%s with 400 naming the parameter', async (query, message) => {
      const response = await get(`/plants?${query}`);

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message: expect.stringContaining(message) });
    });

    it('finds a page through an index, whatever its depth: no OFFSET, no sort', async () => {
      await testApp.db.query(
        `INSERT INTO plants (id, name, tag) SELECT g, 'Plant ' || g, CASE WHEN g % 3 = 0 THEN 'fern' END
         FROM generate_series(1, 200000) AS g`,
      );
      await testApp.db.query('ANALYZE plants');
      for (const tag of [null, 'fern']) {
        const { rows } = await testApp.db.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT id, name, tag FROM plants WHERE id > $1 ${tag ? 'AND tag = $2' : ''} ORDER BY id LIMIT 21`,
          tag ? ['150000', tag] : ['150000'],
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Index (Only )?Scan using plants_(pkey|tag_id)/);
        expect(plan).not.toMatch(/Sort|Offset/);
      }
    });

    it('walks every page without a gap or a repeat while plants are added meanwhile', async () => {
      await seed(
        ...Array.from(
          { length: 120 },
          (_, index) => [String(index * 10), `Plant ${index}`] as [string, string],
        ),
      );
      let adding = true;
      const writer = (async () => {
        for (let id = 1; adding; id += 10) {
          await request(testApp.server)
            .post('/plants')
            .set(AUTH)
            .send({ id, name: `Added ${id}` });
        }
      })();

      const seen: number[] = [];
      for (let path: string | undefined = '/plants?limit=7'; path;) {
        const page = await get(path);
        seen.push(...idsOf(page));
        path = /<([^>]+)>; rel="next"/.exec(page.headers.link ?? '')?.[1];
      }
      adding = false;
      await writer;

      expect(seen).toStrictEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
      for (let index = 0; index < 120; index++) {
        expect(seen).toContain(index * 10);
      }
    });
  });

  describe('DELETE /plants/{id}', () => {
    it('answers 204 with no body, after which the plant is gone: 404 to read it or delete it again', async () => {
      await seed(['7', 'Doomed']);

      const deleted = await request(testApp.server).delete('/plants/7').set(AUTH);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');

      await expect(get('/plants/7').then((res) => res.status)).resolves.toBe(404);
      const again = await request(testApp.server).delete('/plants/7').set(AUTH);
      expect(again.status).toBe(404);
      expect(again.body).toStrictEqual({ error: 404, message: 'No plant has the id 7' });
    });

    it('frees the id: it can be used again for another plant', async () => {
      await seed(['8', 'First']);
      await request(testApp.server).delete('/plants/8').set(AUTH);

      const created = await request(testApp.server).post('/plants').set(AUTH).send({ id: 8, name: 'Second' });

      expect(created.status).toBe(200);
      await expect(get('/plants/8').then((res) => res.body as unknown)).resolves.toStrictEqual({
        id: 8,
        name: 'Second',
      });
    });
  });

  describe('scopes', () => {
    it('reads with plants:read, and writes only with plants:write', async () => {
      await seed(['9', 'Scoped']);
      const reader = `Bearer ${await issuer.token({ scope: 'plants:read' })}`;
      const writer = `Bearer ${await issuer.token({ scope: 'plants:write' })}`;

      expect((await request(testApp.server).get('/plants/9').set('Authorization', reader)).status).toBe(200);
      expect((await request(testApp.server).get('/plants').set('Authorization', reader)).status).toBe(200);
      const forbidden = await request(testApp.server).delete('/plants/9').set('Authorization', reader);
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers['www-authenticate']).toBe(
        'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
      );
      const blind = await request(testApp.server).get('/plants/9').set('Authorization', writer);
      expect(blind.status).toBe(403);
      expect(blind.headers['www-authenticate']).toContain('scope="plants:read"');
      expect((await request(testApp.server).delete('/plants/9').set('Authorization', writer)).status).toBe(
        204,
      );
    });

    it('lets a write-only token see no more than it writes: POST echoes it, PATCH needs plants:read too', async () => {
      await seed(['10', 'Hidden', 'secret-tag']);
      const writer = `Bearer ${await issuer.token({ scope: 'plants:write' })}`;
      const both = `Bearer ${await issuer.token({ scope: 'plants:read plants:write' })}`;

      const created = await request(testApp.server)
        .post('/plants')
        .set('Authorization', writer)
        .send({ id: 11, name: 'Mine' });
      expect(created.status).toBe(200);
      expect(created.body).toStrictEqual({ name: 'Mine' });

      const peek = await request(testApp.server).patch('/plants/10').set('Authorization', writer).send({});
      expect(peek.status).toBe(403);
      expect(peek.headers['www-authenticate']).toContain('scope="plants:read"');
      expect(JSON.stringify(peek.body)).not.toContain('Hidden');
      const renamed = await request(testApp.server)
        .patch('/plants/10')
        .set('Authorization', writer)
        .send({ name: 'Renamed' });
      expect(renamed.status).toBe(403);
      await expect(get('/plants/10').then((res) => res.body as unknown)).resolves.toStrictEqual({
        id: 10,
        name: 'Hidden',
        tag: 'secret-tag',
      });

      const patched = await request(testApp.server).patch('/plants/10').set('Authorization', both).send({});
      expect(patched.status).toBe(200);
    });
  });
});

import request from 'supertest';
import { type BeforeQueryEvent, DataSource, type EntitySubscriberInterface } from 'typeorm';

import { encodeListCursor, listRequest, type SortValue } from '../src/core/lists/list-request.js';
import { PLANTS_LIST } from '../src/plants/dto/list-plants.query.js';
import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';

const ID_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

/** Names and tags that sort differently by code point than by any language's rules, with LIKE's own characters. */
const NAMES = [
  'Fern',
  'fern',
  'Étoile',
  'Zinnia',
  'aloe',
  'Aloe vera',
  '100% cotton',
  'a_b',
  'axb',
  'a\\b',
  'Monstera deliciosa',
  'Monstera adansonii',
  'Ivy',
  'ivy',
  'Zebra 😀',
  'MONSTERA',
];
const TAGS = [null, 'aroid', 'fern', 'Fern', 'succulent', null, 'épiphyte', 'aroid'];

/** Every sort `sort=` can name for plants: each order of each subset of name and tag, each way, and the id. */
function everySort(): string[] {
  const fields = ['name', 'tag'];
  const orders: string[][] = [[]];
  for (const first of fields) {
    orders.push([first]);
    for (const second of fields.filter((field) => field !== first)) {
      orders.push([first, second]);
    }
  }
  const sorts: string[] = [];
  for (const order of orders) {
    const signed = order.reduce<string[][]>(
      (all, field) =>
        all.flatMap((keys) => [
          [...keys, field],
          [...keys, `-${field}`],
        ]),
      [[]],
    );
    for (const keys of signed) {
      for (const id of keys.length === 0 ? ['id', '-id'] : [undefined, 'id', '-id']) {
        sorts.push([...keys, ...(id ? [id] : [])].join(','));
      }
    }
  }
  return sorts;
}

/** `ORDER BY` of a sort as PostgreSQL would write it, the id added as the list adds it. */
function orderByOf(sort: string): string {
  const keys = sort.split(',');
  if (!/^-?id$/.test(keys.at(-1)!)) {
    keys.push(keys.at(-1)!.startsWith('-') ? '-id' : 'id');
  }
  return keys.map((key) => (key.startsWith('-') ? `${key.slice(1)} DESC` : `${key} ASC`)).join(', ');
}

describe('GET /plants: sorts, filters, cursors and counts', () => {
  const testApp = useTestApp();

  const get = (path: string, headers: Record<string, string> = {}) =>
    request(testApp.server).get(path.replaceAll(' ', '%20')).set(AUTH).set(headers);

  const idsOf = (page: request.Response): number[] =>
    (page.body as Array<{ id: number }>).map((plant) => plant.id);

  const nextOf = (page: request.Response): string | undefined =>
    /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];

  /** Follows the Link headers from `path` to the last page: every id, in the order answered. */
  async function walk(path: string, headers: Record<string, string> = {}): Promise<number[]> {
    const ids: number[] = [];
    for (let next: string | undefined = path; next !== undefined;) {
      const page = await get(next, headers);
      expect(page.status).toBe(200);
      ids.push(...idsOf(page));
      next = nextOf(page);
    }
    return ids;
  }

  /** What PostgreSQL itself answers. */
  async function idsInOrder(where: string, orderBy: string, parameters: unknown[] = []): Promise<number[]> {
    const { rows } = await testApp.db.query<{ id: string }>(
      `SELECT id FROM plants ${where === '' ? '' : `WHERE ${where}`} ORDER BY ${orderBy}`,
      parameters,
    );
    return rows.map((row) => Number(row.id));
  }

  async function seedVaried(count = 64): Promise<void> {
    await testApp.db.query(
      `INSERT INTO plants (id, name, tag)
       SELECT g * 7 - 200, ($1::text[])[1 + g % cardinality($1::text[])], ($2::text[])[1 + g % cardinality($2::text[])]
       FROM generate_series(1, $3::int) AS g`,
      [NAMES, TAGS, count],
    );
  }

  describe('sorts', () => {
    it('pages every sort, ascending and descending, equal end to end to PostgreSQL’s own ORDER BY', async () => {
      await seedVaried();

      for (const sort of everySort()) {
        expect({ sort, ids: await walk(`/plants?sort=${sort}&limit=5`) }).toStrictEqual({
          sort,
          ids: await idsInOrder('', orderByOf(sort)),
        });
      }
    });

    it('pages a sort with filters, each page after the cursor of the one before', async () => {
      await seedVaried();

      expect(await walk('/plants?sort=-tag,name&tag[ne]=fern&name[gte]=M&limit=3')).toStrictEqual(
        await idsInOrder(`tag IS DISTINCT FROM 'fern' AND name >= 'M'`, orderByOf('-tag,name')),
      );
      expect(await walk('/plants?sort=name,-id&name[prefix]=Mon&limit=2')).toStrictEqual(
        await idsInOrder(`name LIKE 'Mon%'`, 'name, id DESC'),
      );
    });

    it('orders text by code point, the same on every database', async () => {
      await testApp.db.query(
        `INSERT INTO plants (id, name) VALUES (1, 'b'), (2, 'B'), (3, 'á'), (4, 'a'), (5, 'Z'), (6, '😀'), (7, 'ﬀ')`,
      );

      const page = await get('/plants?sort=name');

      expect((page.body as Array<{ name: string }>).map((plant) => plant.name)).toStrictEqual([
        'B',
        'Z',
        'a',
        'b',
        'á',
        'ﬀ',
        '😀',
      ]);
    });

    it('links the next page by a cursor once sort is given, and by after without it', async () => {
      await seedVaried(5);

      const sorted = await get('/plants?sort=id&limit=2');
      expect(sorted.headers.link).toMatch(/^<\/plants\?limit=2&sort=id&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
      const plain = await get('/plants?limit=2&tag=aroid');
      expect(plain.headers.link).toBeUndefined();
      const unsorted = await get('/plants?limit=2');
      expect(unsorted.headers.link).toBe(`</plants?limit=2&after=${idsOf(unsorted)[1]}>; rel="next"`);
      const filtered = await get('/plants?limit=1&name[gte]=a');
      expect(filtered.headers.link).toMatch(
        /^<\/plants\?limit=1&name%5Bgte%5D=a&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
      );
    });

    it('takes after in id order, with sort=id too', async () => {
      await seedVaried(10);
      const ids = await idsInOrder('', 'id');

      const page = await get(`/plants?sort=id&after=${ids[3]}&limit=2`);

      expect(idsOf(page)).toStrictEqual(ids.slice(4, 6));
      expect(await walk(nextOf(page)!)).toStrictEqual(ids.slice(6));
    });

    it.each([
      ['sort=colour', 'sort cannot use colour: the sortable fields are id, name, tag'],
      ['sort=name,-name', 'sort names name twice'],
      ['sort=id,name', 'sort must end with id, which is unique: name after it would never apply'],
      ['sort=', 'sort must list fields separated by commas'],
      ['sort=name,', 'sort must list fields separated by commas'],
      ['sort=name&sort=tag', 'sort must be given once'],
      ['sort=version', 'sort cannot use version'],
    ])('refuses ?%s with 400 naming it', async (query, message) => {
      const response = await get(`/plants?${query}`);

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message: expect.stringContaining(message) });
    });
  });

  describe('filters', () => {
    beforeEach(async () => {
      await seedVaried();
    });

    it.each([
      ['name=Fern', `name = 'Fern'`],
      ['name[ne]=Fern', `name <> 'Fern'`],
      ['name[lt]=M', `name < 'M'`],
      ['name[lte]=Monstera deliciosa', `name <= 'Monstera deliciosa'`],
      ['name[gt]=a', `name > 'a'`],
      ['name[gte]=Ivy', `name >= 'Ivy'`],
      ['name[in]=Ivy&name[in]=ivy&name[in]=nothing', `name IN ('Ivy', 'ivy')`],
      ['name[in]=aloe', `name = 'aloe'`],
      ['name[prefix]=Mon', `name LIKE 'Mon%'`],
      ['name[prefix]=a_', `name LIKE 'a\\_%'`],
      ['name[prefix]=a%5C', `name LIKE 'a\\\\%'`],
      ['name[prefix]=100%25', `name LIKE '100\\%%'`],
      ['name[contains]=ERN', `name ILIKE '%ern%'`],
      ['name[contains]=0%25 c', `name ILIKE '%0\\% c%'`],
      ['name[contains]=a_b', `name = 'a_b'`],
      ['tag=aroid', `tag = 'aroid'`],
      ['tag[ne]=aroid', `tag IS DISTINCT FROM 'aroid'`],
      ['tag[lt]=f', `tag < 'f'`],
      ['tag[gte]=fern', `tag >= 'fern'`],
      ['tag[in]=fern&tag[in]=Fern', `tag IN ('fern', 'Fern')`],
      ['tag[prefix]=f', `tag LIKE 'f%'`],
      ['tag[contains]=FER', `tag ILIKE '%fer%'`],
      ['tag[null]=true', `tag IS NULL`],
      ['tag[null]=false', `tag IS NOT NULL`],
      ['id=-193', `id = -193`],
      ['id[ne]=-193', `id <> -193`],
      ['id[lt]=0', `id < 0`],
      ['id[lte]=-193', `id <= -193`],
      ['id[gt]=100', `id > 100`],
      ['id[gte]=100', `id >= 100`],
      ['id[in]=-193&id[in]=-186&id[in]=5', `id IN (-193, -186)`],
      ['tag=aroid&name[prefix]=M&id[gt]=0', `tag = 'aroid' AND name LIKE 'M%' AND id > 0`],
    ])('?%s selects what WHERE %s does, page after page', async (query, where) => {
      const ids = await idsInOrder(where, 'id');
      expect(ids.length).toBeGreaterThan(0);

      expect(await walk(`/plants?${query}&limit=4`)).toStrictEqual(ids);
      expect(await walk(`/plants?${query}&sort=-name&limit=4`)).toStrictEqual(
        await idsInOrder(where, 'name DESC, id DESC'),
      );
    });

    it.each([
      ['name[like]=a', 'query parameter name[like] is not allowed'],
      ['name[null]=true', 'query parameter name[null] is not allowed'],
      ['id[prefix]=1', 'query parameter id[prefix] is not allowed'],
      ['version=1', 'query parameter version is not allowed'],
      ['colour[eq]=red', 'query parameter colour[eq] is not allowed'],
      ['name[contains]=ab', 'name[contains] must be a string of 3 to 255 characters'],
      ['name[prefix]=', 'name[prefix] must be a string of 1 to 255 characters'],
      [`name=${'x'.repeat(256)}`, 'name must be a string of 1 to 255 characters'],
      ['name[prefix]=a&name[prefix]=b', 'name[prefix] must be a string'],
      ['id=x', `id ${ID_RULE}`],
      ['id[gt]=9223372036854775808', `id[gt] ${ID_RULE}`],
      ['id[in]=1&id[in]=x', `id[in] ${ID_RULE}`],
      [`${'tag[in]=a&'.repeat(101)}limit=1`, 'tag[in] takes 1 to 100 values'],
      ['tag[null]=yes', 'tag[null] must be true or false'],
      ['after=5&sort=-name', 'after pages in id order only'],
      ['cursor=!!', 'cursor must be the cursor of a Link header'],
      ['cursor=bm90IGEgY3Vyc29y', "cursor is not one of this service's next-page links"],
    ])('refuses ?%s with 400 naming the field or the operator', async (query, message) => {
      const response = await get(`/plants?${query}`);

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message: expect.stringContaining(message) });
    });
  });

  describe('pages asked at once', () => {
    it('are read together, by one statement per shape, each its own page as PostgreSQL orders it', async () => {
      await seedVaried(400);
      const recorder = new SelectRecorder();
      const { subscribers } = testApp.app.get(DataSource);
      subscribers.push(recorder);
      const asked = Array.from({ length: 48 }, (_, index) => {
        const after = index * 53 - 200;
        const name = NAMES[index % NAMES.length];
        switch (index % 4) {
          case 3: {
            const prefix = [...name].slice(0, 2).join('');
            return {
              path: `/plants?sort=name&name[prefix]=${encodeURIComponent(prefix)}&limit=3`,
              where: 'starts_with(name, $1)',
              parameters: [prefix],
              orderBy: orderByOf('name'),
              limit: 3,
            };
          }
          case 0:
            return {
              path: `/plants?after=${after}&limit=5`,
              where: `id > ${after}`,
              orderBy: 'id',
              limit: 5,
            };
          case 1:
            return {
              path: `/plants?after=${after}&tag=aroid&limit=4`,
              where: `tag = 'aroid' AND id > ${after}`,
              orderBy: 'id',
              limit: 4,
            };
          default:
            return {
              path: `/plants?sort=-name&name[lt]=${encodeURIComponent(name)}&limit=3`,
              where: `name < '${name.replaceAll("'", "''")}'`,
              orderBy: orderByOf('-name'),
              limit: 3,
            };
        }
      });

      try {
        const pages = await Promise.all(asked.map(({ path }) => get(path)));

        for (const [index, { path, where, parameters, orderBy, limit }] of asked.entries()) {
          expect({ path, status: pages[index].status, ids: idsOf(pages[index]) }).toStrictEqual({
            path,
            status: 200,
            ids: (await idsInOrder(where, orderBy, parameters)).slice(0, limit),
          });
        }
        expect(recorder.statements.length).toBeLessThan(asked.length);
        expect(recorder.statements.every(({ query }) => query.includes('CROSS JOIN LATERAL'))).toBe(true);
      } finally {
        subscribers.splice(subscribers.indexOf(recorder), 1);
      }
    });
  });

  describe('cursors', () => {
    it('refuses a cursor replayed with another sort or other filters, and with after', async () => {
      await seedVaried();
      const first = await get('/plants?sort=name&tag[ne]=fern&limit=2');
      const cursor = new URL(nextOf(first)!, 'http://localhost').searchParams.get('cursor')!;

      for (const query of [
        `sort=-name&tag[ne]=fern&cursor=${cursor}`,
        `sort=name,tag&tag[ne]=fern&cursor=${cursor}`,
        `sort=name&tag[ne]=aroid&cursor=${cursor}`,
        `sort=name&cursor=${cursor}`,
        `sort=name&tag[ne]=fern&tag[null]=false&cursor=${cursor}`,
      ]) {
        const replayed = await get(`/plants?${query}`);
        expect(replayed.status).toBe(400);
        expect(replayed.body).toStrictEqual({
          error: 400,
          message:
            'cursor belongs to another sort or other filters: send it with the query of the Link it came in',
        });
      }
      const withAfter = await get(`/plants?sort=name&tag[ne]=fern&after=1&cursor=${cursor}`);
      expect(withAfter.body).toStrictEqual({
        error: 400,
        message: 'after and cursor cannot be sent together: send the cursor alone',
      });
      // The limit is the client's to change between pages, and in's values are a set.
      const resized = await get(`/plants?sort=name&tag[ne]=fern&limit=7&cursor=${cursor}`);
      expect(resized.status).toBe(200);
    });

    it('takes in’s values in any order with the same cursor', async () => {
      await seedVaried();
      const first = await get('/plants?sort=name&tag[in]=aroid&tag[in]=fern&limit=2');
      const cursor = new URL(nextOf(first)!, 'http://localhost').searchParams.get('cursor')!;

      const reordered = await get(`/plants?sort=name&tag[in]=fern&tag[in]=aroid&limit=2&cursor=${cursor}`);

      expect(reordered.status).toBe(200);
    });

    it('refuses a cursor whose values are not what its sort keys hold', async () => {
      await seedVaried(5);
      const first = await get('/plants?sort=name&limit=1');
      const cursor = new URL(nextOf(first)!, 'http://localhost').searchParams.get('cursor')!;
      const { d: digest } = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { d: string };
      const forged = (values: unknown[]) =>
        Buffer.from(JSON.stringify({ k: values, d: digest })).toString('base64url');

      expect((await get(`/plants?sort=name&cursor=${forged(['Fern', '1'])}`)).status).toBe(200);
      for (const values of [
        [1, '1'],
        ['Fern'],
        ['Fern', 'x'],
        [null, '1'],
        ['x'.repeat(256), '1'],
        ['a\u0000', '1'],
      ]) {
        const response = await get(`/plants?sort=name&cursor=${forged(values)}`);
        expect(response.status).toBe(400);
        expect(response.body).toStrictEqual({
          error: 400,
          message: "cursor is not one of this service's next-page links",
        });
      }
    });
  });

  describe('counts', () => {
    it('counts nothing unless asked', async () => {
      await seedVaried(5);

      const page = await get('/plants?limit=2');

      expect(page.headers['content-range']).toBeUndefined();
      expect(page.headers['preference-applied']).toBeUndefined();
    });

    it('answers Prefer: count=exact with Content-Range, page after page, and Preference-Applied', async () => {
      await seedVaried(50);
      const total = (await idsInOrder(`tag IS DISTINCT FROM 'fern'`, 'id')).length;
      const headers = { Prefer: 'count=exact' };

      const first = await get('/plants?sort=name&tag[ne]=fern&limit=20', headers);
      expect(first.headers['content-range']).toBe(`0-19/${total}`);
      expect(first.headers['preference-applied']).toBe('count=exact');
      const second = await get(nextOf(first)!, headers);
      expect(second.headers['content-range']).toBe(`20-${Math.min(39, total - 1)}/${total}`);
      expect(second.headers['preference-applied']).toBe('count=exact');
    });

    it('says */total where the position is unknown: a page by after, or an empty one', async () => {
      await seedVaried(50);

      const byAfter = await get('/plants?after=0&limit=5', { Prefer: 'count=exact' });
      expect(byAfter.headers['content-range']).toBe('*/50');
      const empty = await get('/plants?name=none', { Prefer: 'count=exact' });
      expect(empty.headers['content-range']).toBe('*/0');
      expect(empty.body).toStrictEqual([]);
    });

    it.each([
      ['count=estimated', 'count=estimated'],
      ['return=minimal, count="estimated"; x=1', 'count=estimated'],
      ['COUNT=EXACT', 'count=exact'],
      ['respond-async, count=exact', 'count=exact'],
    ])('reads Prefer: %s as RFC 7240 does', async (prefer, applied) => {
      await seedVaried(50);

      const page = await get('/plants?limit=10', { Prefer: prefer });

      expect(page.headers['preference-applied']).toBe(applied);
      expect(page.headers['content-range']).toMatch(/^0-9\/\d+$/);
    });

    it.each(['count=planned', 'count', 'return=representation', 'count=exact;x, count=estimated'])(
      'ignores Prefer: %s, a preference it does not serve (the first count counts)',
      async (prefer) => {
        await seedVaried(50);

        const page = await get('/plants?limit=10', { Prefer: prefer });

        expect(page.status).toBe(200);
        if (prefer.startsWith('count=exact')) {
          expect(page.headers['preference-applied']).toBe('count=exact');
        } else {
          expect(page.headers['preference-applied']).toBeUndefined();
          expect(page.headers['content-range']).toBeUndefined();
        }
      },
    );

    it('estimates from the planner, and counts the last page exactly when its position is known', async () => {
      await testApp.db.query(
        `INSERT INTO plants (id, name) SELECT g, 'Plant ' || g FROM generate_series(1, 20000) AS g`,
      );
      await testApp.db.query('ANALYZE plants');

      const estimated = await get('/plants?sort=name&limit=5', { Prefer: 'count=estimated' });
      const [, total] = /^0-4\/(\d+)$/.exec(estimated.headers['content-range'] ?? '') ?? [];
      expect(Number(total)).toBeGreaterThan(15_000);
      expect(Number(total)).toBeLessThan(25_000);
      const last = await get('/plants?sort=name&name[prefix]=Plant 1999', { Prefer: 'count=estimated' });
      expect(last.headers['content-range']).toBe('0-10/11');
    });
  });

  describe('with an exact count that runs out of time', () => {
    const slowCounts = useTestApp({ LIST_COUNT_TIMEOUT_MS: '1' });

    it('falls back to the estimate and says so, rather than failing', async () => {
      await slowCounts.db.query(
        `INSERT INTO plants (id, name) SELECT g, 'Plant ' || g FROM generate_series(1, 50000) AS g`,
      );
      await slowCounts.db.query('ANALYZE plants');

      const page = await request(slowCounts.server)
        .get('/plants?sort=-name&name[contains]=ant&limit=3')
        .set(AUTH)
        .set('Prefer', 'count=exact');

      expect(page.status).toBe(200);
      expect(page.headers['preference-applied']).toBe('count=estimated');
      expect(page.headers['content-range']).toMatch(/^0-2\/\d+$/);
      expect(idsOf(page)).toHaveLength(3);
    });
  });
});

/** Records the plants' SELECTs TypeORM sends, with their parameters, to be explained as they were sent. */
class SelectRecorder implements EntitySubscriberInterface {
  statements: Array<{ query: string; parameters: unknown[] }> = [];

  beforeQuery({ query, parameters }: BeforeQueryEvent): void {
    if (/^SELECT .* FROM "plants"/s.test(query) && !query.includes('COUNT(*)')) {
      this.statements.push({ query, parameters: Array.isArray(parameters) ? parameters : [] });
    }
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function scansOf(plan: PlanNode): string[] {
  return [
    ...(plan['Relation Name'] ? [`${plan['Node Type']} on ${plan['Relation Name']}`] : []),
    ...(plan.Plans ?? []).flatMap(scansOf),
  ];
}

describe('GET /plants on 200,000 plants: every sort and filter the docs promise, from an index', () => {
  const testApp = useTestApp();
  let recorder: SelectRecorder;

  beforeAll(() => {
    recorder = new SelectRecorder();
    testApp.app.get(DataSource).subscribers.push(recorder);
  });

  /** A cursor `offset` rows into the list in this sort: the page after that row. */
  async function cursorAt(sort: string, offset: number): Promise<string> {
    const request = listRequest(PLANTS_LIST, { sort });
    const keys = request.order.keys.map(({ field }) => field.property);
    const { rows } = await testApp.db.query<Record<string, SortValue>>(
      `SELECT ${keys.map((key) => `${key}::text AS ${key}`).join(', ')} FROM plants
       ORDER BY ${orderByOf(sort)} OFFSET $1 LIMIT 1`,
      [offset],
    );
    return encodeListCursor(
      request,
      keys.map((key) => rows[0][key]),
      offset + 1,
    );
  }

  it('plans no sequential scan of the table for any of them', async () => {
    await testApp.db.query(
      `INSERT INTO plants (id, name, tag)
       SELECT g, 'Plant ' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'tag' || (g % 50) END
       FROM generate_series(1, 200000) AS g`,
    );
    await testApp.db.query('ANALYZE plants');
    const queries: string[] = [];
    for (const sort of ['id', '-id', 'name', '-name', 'tag', '-tag', 'name,-id', '-tag,name']) {
      // A quarter of the way, and three quarters: the tags' cursors both before and among their NULLs.
      queries.push(
        `sort=${sort}`,
        `sort=${sort}&cursor=${await cursorAt(sort, 50_000)}`,
        `sort=${sort}&cursor=${await cursorAt(sort, 150_000)}`,
      );
    }
    for (const filter of [
      'id=150000',
      'id[ne]=150000',
      'id[lt]=1000',
      'id[lte]=199000',
      'id[gt]=150000',
      'id[gte]=10',
      'id[in]=5&id[in]=150000',
      'name=Plant 150000',
      'name[ne]=Plant 150000',
      'name[lt]=Plant 100',
      'name[lte]=Plant 99',
      'name[gt]=Plant 5',
      'name[gte]=Plant 2',
      'name[in]=Plant 5&name[in]=Plant 7',
      'name[prefix]=Plant 1234',
      'name[contains]=t 12345',
      'tag=tag7',
      'tag[ne]=tag7',
      'tag[lt]=tag2',
      'tag[lte]=tag1',
      'tag[gt]=tag8',
      'tag[gte]=tag4',
      'tag[in]=tag1&tag[in]=tag2',
      'tag[prefix]=tag4',
      'tag[contains]=ag49',
      'tag[null]=true',
      'tag[null]=false',
    ]) {
      queries.push(filter, `${filter}&sort=-id`, `${filter}&sort=name`, `${filter}&sort=-tag`);
    }
    queries.push(`name[prefix]=Plant 12&sort=name&cursor=${await namePrefixCursor()}`);

    const plans: string[] = [];
    for (const query of queries) {
      recorder.statements = [];
      const response = await request(testApp.server).get(`/plants?${query}`.replaceAll(' ', '%20')).set(AUTH);
      expect({ query, status: response.status }).toStrictEqual({ query, status: 200 });
      expect(recorder.statements.length).toBeGreaterThan(0);
      for (const { query: sql, parameters } of recorder.statements) {
        const { rows } = await testApp.db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
          `EXPLAIN (FORMAT JSON) ${sql}`,
          parameters,
        );
        plans.push(...scansOf(rows[0]['QUERY PLAN'][0].Plan).map((scan) => `${query}: ${scan}`));
      }
    }

    expect(plans.filter((scan) => scan.includes('Seq Scan'))).toStrictEqual([]);
    expect(plans.length).toBeGreaterThanOrEqual(queries.length);
  }, 180_000);

  /** The second page of names starting `Plant 12`, by the service's own Link. */
  async function namePrefixCursor(): Promise<string> {
    const first = await request(testApp.server).get('/plants?name[prefix]=Plant%2012&sort=name').set(AUTH);
    return new URL(/^<([^>]+)>/.exec(first.headers.link)![1], 'http://localhost').searchParams.get('cursor')!;
  }
});

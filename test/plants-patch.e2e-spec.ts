import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { plantRow } from './support/database.js';
import { startTestApp, type TestApp, useTestApp } from './support/app.js';

const MERGE_PATCH = 'application/merge-patch+json';

describe('PATCH /plants/{id}, ETags and conditional requests', () => {
  const testApp = useTestApp();

  async function stored(overrides: Record<string, unknown> = {}): Promise<number> {
    const plant = newPlant(overrides);
    await request(testApp.server).post('/plants').set(AUTH).send(plant).expect(200);
    return plant.id as number;
  }

  const patch = (id: number | string, body: unknown, headers: Record<string, string> = {}) =>
    request(testApp.server)
      .patch(`/plants/${id}`)
      .set(AUTH)
      .set({ 'Content-Type': MERGE_PATCH, ...headers })
      .send(JSON.stringify(body));

  const get = (id: number | string, headers: Record<string, string> = {}) =>
    request(testApp.server).get(`/plants/${id}`).set(AUTH).set(headers);

  const remove = (id: number | string, headers: Record<string, string> = {}) =>
    request(testApp.server).delete(`/plants/${id}`).set(AUTH).set(headers);

  async function versionOf(id: number): Promise<number | undefined> {
    const { rows } = await testApp.db.query<{ version: number }>('SELECT version FROM plants WHERE id = $1', [
      id,
    ]);
    return rows[0]?.version;
  }

  describe('the merge patch', () => {
    it('sets the name, answers the plant as GET shows it, and a new strong ETag', async () => {
      const id = await stored({ name: 'Fern', tag: 'pteridophyte' });

      const response = await patch(id, { name: 'Maidenhair fern' });

      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({ id, name: 'Maidenhair fern', tag: 'pteridophyte' });
      expect(response.headers.etag).toBe('"2"');
      const read = await get(id);
      expect(read.body).toStrictEqual(response.body);
      expect(read.headers.etag).toBe('"2"');
      await expect(plantRow(testApp.db, id)).resolves.toStrictEqual({
        id: String(id),
        name: 'Maidenhair fern',
        tag: 'pteridophyte',
      });
    });

    it('removes the tag with "tag": null, and leaves tag out of the answer', async () => {
      const id = await stored({ tag: 'aroid' });

      const response = await patch(id, { tag: null });

      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({ id, name: 'Monstera deliciosa' });
      await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ tag: null });
    });

    it('takes application/json as well, and an id equal to the path’s', async () => {
      const id = await stored({ tag: undefined });

      const response = await request(testApp.server)
        .patch(`/plants/${id}`)
        .set(AUTH)
        .send({ id, tag: 'aroid' });

      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({ id, name: 'Monstera deliciosa', tag: 'aroid' });
    });

    it('keeps every digit of an int64 id', async () => {
      const id = '9223372036854775807';
      await request(testApp.server)
        .post('/plants')
        .set(AUTH)
        .set('Content-Type', 'application/json')
        .send(`{"id":${id},"name":"Fern"}`)
        .expect(200);

      const response = await patch(id, { name: 'Moss' });

      expect(response.status).toBe(200);
      expect(response.text).toBe(`{"id":${id},"name":"Moss"}`);
    });

    it('changes nothing on an empty patch: 200, the same ETag, the same version', async () => {
      const id = await stored();

      const response = await patch(id, {});

      expect(response.status).toBe(200);
      expect(response.body).toStrictEqual({ id, name: 'Monstera deliciosa', tag: 'aroid' });
      expect(response.headers.etag).toBe('"1"');
      await expect(versionOf(id)).resolves.toBe(1);
    });

    it.each([
      [{ name: null }, 'name must be a string of 1 to 255 characters'],
      [{ name: '   ' }, 'name must be a string of 1 to 255 characters that is not only white space'],
      [{ tag: '' }, 'tag must be a string of 1 to 255 characters'],
      [{ colour: 'green' }, 'property colour is not allowed'],
      [{ id: 1 }, 'id 1 differs from the id in the path'],
      [{ id: null }, 'id must be an integer'],
    ])('refuses %j with 400 and changes nothing', async (body, message) => {
      const id = await stored();

      const response = await patch(id, body);

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({ error: 400, message: expect.stringContaining(message) });
      await expect(versionOf(id)).resolves.toBe(1);
    });

    it('refuses a body that is not a JSON object with 400', async () => {
      const id = await stored();

      for (const body of ['[]', '"name"', 'null', '{']) {
        const response = await request(testApp.server)
          .patch(`/plants/${id}`)
          .set(AUTH)
          .set('Content-Type', MERGE_PATCH)
          .send(body);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: 400 });
      }
    });

    it('refuses other media types with 415, naming the two it takes', async () => {
      const id = await stored();

      const response = await request(testApp.server)
        .patch(`/plants/${id}`)
        .set(AUTH)
        .set('Content-Type', 'text/plain')
        .send('{"name":"Moss"}');

      expect(response.status).toBe(415);
      expect(response.body).toStrictEqual({
        error: 415,
        message: 'Content-Type must be application/merge-patch+json or application/json',
      });
    });

    it('does not take application/merge-patch+json on POST', async () => {
      const response = await request(testApp.server)
        .post('/plants')
        .set(AUTH)
        .set('Content-Type', MERGE_PATCH)
        .send(JSON.stringify(newPlant()));

      expect(response.status).toBe(415);
    });

    it('answers 404 for an unknown id, with If-Match or without', async () => {
      const conditions: Array<Record<string, string>> = [{}, { 'If-Match': '"1"' }, { 'If-Match': '*' }];
      for (const headers of conditions) {
        const response = await patch(404, { name: 'Moss' }, headers);
        expect(response.status).toBe(404);
        expect(response.body).toStrictEqual({ error: 404, message: 'No plant has the id 404' });
      }
    });

    it('is a route of /plants/{id}: Allow names PATCH beside GET and DELETE', async () => {
      const response = await request(testApp.server).put('/plants/1').set(AUTH).send({ name: 'Moss' });

      expect(response.status).toBe(405);
      expect(response.headers.allow?.split(/,\s*/)).toEqual(
        expect.arrayContaining(['GET', 'PATCH', 'DELETE']),
      );
    });

    it('refuses a malformed id in the path with 400', async () => {
      const response = await patch('abc', { name: 'Moss' });

      expect(response.status).toBe(400);
    });
  });

  describe('ETags on GET', () => {
    it('answers a strong ETag that changes with every change, never on the list', async () => {
      const id = await stored();

      const first = await get(id);
      await patch(id, { name: 'Fern' }).expect(200);
      const second = await get(id);
      const list = await request(testApp.server).get('/plants').set(AUTH);

      expect(first.headers.etag).toBe('"1"');
      expect(second.headers.etag).toBe('"2"');
      expect(list.status).toBe(200);
      expect(list.headers.etag).toBeUndefined();
    });

    it.each([['"1"'], ['W/"1"'], ['*'], ['"7", "1"'], ['"7",,W/"1"']])(
      'answers 304 with no body to If-None-Match: %s',
      async (ifNoneMatch) => {
        const id = await stored();

        const response = await get(id, { 'If-None-Match': ifNoneMatch });

        expect(response.status).toBe(304);
        expect(response.text).toBe('');
        expect(response.headers.etag).toBe('"1"');
      },
    );

    it('answers 200 when If-None-Match names another version', async () => {
      const id = await stored();
      await patch(id, { name: 'Fern' }).expect(200);

      const response = await get(id, { 'If-None-Match': '"1"' });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id, name: 'Fern' });
    });

    it('refuses a malformed If-None-Match with 400', async () => {
      const id = await stored();

      const response = await get(id, { 'If-None-Match': '1' });

      expect(response.status).toBe(400);
      expect(response.body).toStrictEqual({
        error: 400,
        message: 'If-None-Match must be * or a list of entity tags such as "3"',
      });
    });
  });

  describe('If-Match on PATCH and DELETE', () => {
    it('applies a PATCH whose If-Match names the current version, or *', async () => {
      const id = await stored();

      await patch(id, { name: 'Fern' }, { 'If-Match': '"1"' }).expect(200);
      const response = await patch(id, { name: 'Moss' }, { 'If-Match': '*' });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"3"');
    });

    it.each([['"2"'], ['W/"1"'], ['"abc"'], ['"0"']])(
      'answers a stale If-Match (%s) with 412, and changes nothing',
      async (ifMatch) => {
        const id = await stored({ name: 'Fern' });

        const response = await patch(id, { name: 'Moss' }, { 'If-Match': ifMatch });

        expect(response.status).toBe(412);
        expect(response.body).toStrictEqual({
          error: 412,
          message: expect.stringContaining('If-Match') as string,
        });
        await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: 'Fern' });
        await expect(versionOf(id)).resolves.toBe(1);
      },
    );

    it('answers 412 to an empty patch with a stale If-Match', async () => {
      const id = await stored();
      await patch(id, { name: 'Fern' }).expect(200);

      await patch(id, {}, { 'If-Match': '"1"' }).expect(412);
    });

    it('deletes with the current If-Match, refuses a stale one with 412, and 404s an unknown id', async () => {
      const id = await stored();
      await patch(id, { name: 'Fern' }).expect(200);

      const stale = await remove(id, { 'If-Match': '"1"' });
      expect(stale.status).toBe(412);
      await expect(plantRow(testApp.db, id)).resolves.toBeDefined();

      await remove(id, { 'If-Match': '"2"' }).expect(204);
      await expect(plantRow(testApp.db, id)).resolves.toBeUndefined();

      const gone = await remove(id, { 'If-Match': '"2"' });
      expect(gone.status).toBe(404);
      expect(gone.body).toStrictEqual({ error: 404, message: `No plant has the id ${id}` });
    });

    it('refuses a malformed If-Match with 400', async () => {
      const id = await stored();

      const response = await patch(id, { name: 'Moss' }, { 'If-Match': 'W/' });

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 400, message: expect.stringContaining('If-Match') });
    });

    it('starts a deleted and re-created plant at version 1 again', async () => {
      const id = await stored();
      await patch(id, { name: 'Fern' }).expect(200);
      await remove(id).expect(204);
      await stored({ id });

      await expect(get(id)).resolves.toMatchObject({ headers: { etag: '"1"' } });
    });
  });

  describe('Last-Modified, If-Modified-Since and If-Unmodified-Since', () => {
    const httpDate = (time: number) => new Date(time).toUTCString();

    it('sends the time of the last change, to the second, on a read and a change', async () => {
      const id = await stored();
      const { rows } = await testApp.db.query<{ updated_at: Date }>(
        'SELECT updated_at FROM plants WHERE id = $1',
        [id],
      );

      const read = await get(id);
      expect(read.headers['last-modified']).toBe(rows[0].updated_at.toUTCString());
      const changed = await patch(id, { name: 'Fern' });
      expect(changed.headers['last-modified']).toEqual(expect.any(String));
      const after = await testApp.db.query<{ updated_at: Date }>(
        'SELECT updated_at FROM plants WHERE id = $1',
        [id],
      );
      expect(after.rows[0].updated_at.getTime()).toBeGreaterThan(rows[0].updated_at.getTime());
      expect(changed.headers['last-modified']).toBe(after.rows[0].updated_at.toUTCString());
    });

    it('answers 304 to If-Modified-Since at or after the last change, 200 before it', async () => {
      const id = await stored();
      const lastModified = Date.parse(String((await get(id)).headers['last-modified']));

      const same = await get(id, { 'If-Modified-Since': httpDate(lastModified) });
      expect(same.status).toBe(304);
      expect(same.text).toBe('');
      expect(same.headers.etag).toBe('"1"');
      await get(id, { 'If-Modified-Since': httpDate(lastModified + 60_000) }).expect(304);
      const older = await get(id, { 'If-Modified-Since': httpDate(lastModified - 1000) });
      expect(older.status).toBe(200);
      // If-None-Match decides alone when both are sent.
      await get(id, { 'If-None-Match': '"0"', 'If-Modified-Since': httpDate(lastModified) }).expect(200);
      // A value that is not a date is ignored.
      await get(id, { 'If-Modified-Since': 'not a date' }).expect(200);
    });

    it('refuses a PATCH or DELETE with 412 when the plant changed after If-Unmodified-Since', async () => {
      const id = await stored({ name: 'Fern' });
      const lastModified = Date.parse(String((await get(id)).headers['last-modified']));

      const stale = await patch(
        id,
        { name: 'Moss' },
        { 'If-Unmodified-Since': httpDate(lastModified - 1000) },
      );
      expect(stale.status).toBe(412);
      expect(stale.body).toStrictEqual({
        error: 412,
        message: expect.stringContaining('If-Unmodified-Since'),
      });
      await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: 'Fern' });
      await remove(id, { 'If-Unmodified-Since': httpDate(lastModified - 1000) }).expect(412);

      await patch(id, { name: 'Moss' }, { 'If-Unmodified-Since': httpDate(lastModified) }).expect(200);
      // If-Match decides alone when both are sent.
      await patch(id, { name: 'Ivy' }, { 'If-Match': '"2"', 'If-Unmodified-Since': httpDate(0) }).expect(200);
      await remove(id, { 'If-Unmodified-Since': httpDate(Date.now() + 60_000) }).expect(204);
    });
  });

  describe('patches sent together, which the repository batches', () => {
    /**
     * 30 plants besides the one that cannot change, each renamed at once with it, which is sent in the
     * middle: the first patches leave alone, while no batch is out, and those behind them together.
     */
    async function patchedTogether(id: number, body: unknown) {
      const others = Array.from({ length: 30 }, (_, index) => 1000 + index);
      for (const other of others) {
        await stored({ id: other, name: 'Fern' });
      }
      const responses = await Promise.all([
        ...others.slice(0, 15).map((other) => patch(other, { name: `Fern ${other}` })),
        patch(id, body),
        ...others.slice(15).map((other) => patch(other, { name: `Fern ${other}` })),
      ]);
      const [alone] = responses.splice(15, 1);
      return { alone, rest: responses, others };
    }

    it('answers 409 for a plant at its last version, and changes every other plant patched with it', async () => {
      const id = await stored({ name: 'Fern' });
      await testApp.db.query('UPDATE plants SET version = 2147483647 WHERE id = $1', [id]);

      const { alone, rest, others } = await patchedTogether(id, { name: 'Moss' });

      expect(alone.status).toBe(409);
      expect(alone.body).toStrictEqual({ error: 409, message: expect.stringContaining('last version') });
      expect(rest.map((response) => response.status)).toStrictEqual(others.map(() => 200));
      await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: 'Fern' });
      await expect(versionOf(id)).resolves.toBe(2147483647);
      // It can still be read, with its ETag, and deleted.
      await expect(get(id)).resolves.toMatchObject({ status: 200, headers: { etag: '"2147483647"' } });
      await remove(id, { 'If-Match': '"2147483647"' }).expect(204);
    });

    it('fails only the patch PostgreSQL refuses, and changes every other plant patched with it', async () => {
      const id = await stored({ name: 'Fern' });
      // A rule of the table that the DTO does not know, as a column a team adds may bring.
      await testApp.db.query("ALTER TABLE plants ADD CONSTRAINT plants_no_weeds CHECK (name <> 'Weed')");
      try {
        const { alone, rest, others } = await patchedTogether(id, { name: 'Weed' });

        expect(alone.status).toBe(400);
        expect(alone.body).toStrictEqual({ error: 400, message: expect.any(String) });
        expect(rest.map((response) => response.status)).toStrictEqual(others.map(() => 200));
        await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: 'Fern' });
        await expect(plantRow(testApp.db, others[0])).resolves.toMatchObject({ name: `Fern ${others[0]}` });
      } finally {
        await testApp.db.query('ALTER TABLE plants DROP CONSTRAINT plants_no_weeds');
      }
    });
  });

  describe('with REQUIRE_IF_MATCH=true', () => {
    let strict: TestApp;

    beforeAll(async () => {
      strict = await startTestApp({ REQUIRE_IF_MATCH: 'true' });
    });

    afterAll(async () => {
      await strict.close();
    });

    it('answers 428 to a PATCH or DELETE without If-Match, and changes nothing', async () => {
      const id = await stored({ name: 'Fern' });

      const patched = await request(strict.server)
        .patch(`/plants/${id}`)
        .set(AUTH)
        .set('Content-Type', MERGE_PATCH)
        .send('{"name":"Moss"}');
      const deleted = await request(strict.server).delete(`/plants/${id}`).set(AUTH);

      expect(patched.status).toBe(428);
      expect(patched.body).toStrictEqual({ error: 428, message: expect.stringContaining('If-Match') });
      expect(deleted.status).toBe(428);
      await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: 'Fern' });
    });

    it('still takes reads without conditions, and changes with If-Match', async () => {
      const id = await stored();

      await request(strict.server).get(`/plants/${id}`).set(AUTH).expect(200);
      await request(strict.server)
        .patch(`/plants/${id}`)
        .set(AUTH)
        .set({ 'Content-Type': MERGE_PATCH, 'If-Match': '"1"' })
        .send('{"name":"Moss"}')
        .expect(200);
      await request(strict.server).delete(`/plants/${id}`).set(AUTH).set('If-Match', '*').expect(204);
    });
  });
});

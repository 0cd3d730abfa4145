import request from 'supertest';

import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';
import { undeliveredWebhookEnv } from './support/webhook-receiver.js';
import { FixtureGardensModule } from './fixtures/gardens/gardens.module.js';

interface RecordedEvent {
  readonly type: string;
  readonly payload: unknown;
}

/**
 * What a larger backend needs beyond one table, on `test/fixtures/gardens/`:
 * gardens and their shrubs, a foreign key between them, a transaction over
 * both that records their events, and pages sorted by name, written with
 * TypeORM and the platform's documented helpers alone.
 */
describe('relations, transactions over two resources, sorted pages', () => {
  const testApp = useTestApp(async () => ({ ...(await undeliveredWebhookEnv()), LOG_LEVEL: 'error' }), {
    imports: [FixtureGardensModule],
  });

  const api = () => request(testApp.server);
  const garden = async (name: string) =>
    (await api().post('/fixture-gardens').set(AUTH).send({ name }).expect(201)).body as { id: number };
  const shrub = async (name: string, gardenId?: number) =>
    (await api().post('/fixture-shrubs').set(AUTH).send({ name, gardenId }).expect(201)).body as {
      id: number;
      gardenId?: number;
    };
  /** Moves `shrubIds` into the garden, with `If-Match: ifMatch` when given. */
  const adopt = (gardenId: number, shrubIds: number[], ifMatch?: string) => {
    const call = api().post(`/fixture-gardens/${gardenId}/adopt`).set(AUTH);
    return (ifMatch === undefined ? call : call.set('If-Match', ifMatch)).send({ shrubIds });
  };
  /** The events recorded in the outbox, in the order they were written. */
  const events = async (): Promise<RecordedEvent[]> =>
    (
      await testApp.db.query<{ type: string; payload: string }>(
        'SELECT event_type AS type, payload FROM webhook_deliveries ORDER BY id',
      )
    ).rows.map(({ type, payload }) => ({ type, payload: JSON.parse(payload) as unknown }));
  const shrubRows = async () =>
    (
      await testApp.db.query<{ id: string; garden_id: string | null; version: number }>(
        'SELECT id::text, garden_id::text, version FROM fixture_shrubs ORDER BY id',
      )
    ).rows;

  it('reads, writes and announces a foreign key column like any other', async () => {
    const kew = await garden('Kew');
    const fern = await shrub('Fern', kew.id);

    expect(fern).toStrictEqual({ id: expect.any(Number) as number, name: 'Fern', gardenId: kew.id });
    await expect(api().get(`/fixture-shrubs/${fern.id}`).set(AUTH)).resolves.toMatchObject({
      status: 200,
      body: { id: fern.id, name: 'Fern', gardenId: kew.id },
    });
    const moved = await api()
      .patch(`/fixture-shrubs/${fern.id}`)
      .set(AUTH)
      .send({ gardenId: null })
      .expect(200);
    expect(moved.body).toStrictEqual({ id: fern.id, name: 'Fern' });
    expect(await events()).toStrictEqual([
      { type: 'fixture_garden.created', payload: { id: kew.id, name: 'Kew' } },
      { type: 'fixture_shrub.created', payload: { id: fern.id, name: 'Fern', gardenId: kew.id } },
      { type: 'fixture_shrub.updated', payload: { id: fern.id, name: 'Fern' } },
    ]);
  });

  it('answers 422 in its own words when a shrub names a garden that does not exist, and stores nothing', async () => {
    const created = await api().post('/fixture-shrubs').set(AUTH).send({ name: 'Fern', gardenId: 999 });
    expect(created.status).toBe(422);
    expect(created.body).toStrictEqual({
      error: 422,
      message: 'No garden has the id 999, so no shrub can be planted in it',
    });

    const fern = await shrub('Fern');
    const patched = await api().patch(`/fixture-shrubs/${fern.id}`).set(AUTH).send({ gardenId: 998 });
    expect(patched.body).toStrictEqual({
      error: 422,
      message: 'No garden has the id 998, so no shrub can be planted in it',
    });
    expect(await shrubRows()).toStrictEqual([{ id: String(fern.id), garden_id: null, version: 1 }]);
    expect((await events()).map(({ type }) => type)).toStrictEqual(['fixture_shrub.created']);
  });

  it('answers 409 in its own words to deleting a garden that still has shrubs, and deletes it once empty', async () => {
    const kew = await garden('Kew');
    const fern = await shrub('Fern', kew.id);

    const refused = await api().delete(`/fixture-gardens/${kew.id}`).set(AUTH);
    expect(refused.status).toBe(409);
    expect(refused.body).toStrictEqual({
      error: 409,
      message: `Garden ${kew.id} still has shrubs: move or delete them first`,
    });
    await api().patch(`/fixture-shrubs/${fern.id}`).set(AUTH).send({ gardenId: null }).expect(200);
    await api().delete(`/fixture-gardens/${kew.id}`).set(AUTH).expect(204);
    expect((await events()).map(({ type }) => type)).toStrictEqual([
      'fixture_garden.created',
      'fixture_shrub.created',
      'fixture_shrub.updated',
      'fixture_garden.deleted',
    ]);
  });

  it('changes a garden and its new shrubs in one transaction, recording every change’s event', async () => {
    const kew = await garden('Kew');
    const wisley = await garden('Wisley');
    const fern = await shrub('Fern', wisley.id);
    const moss = await shrub('Moss');
    const before = (await events()).length;

    const adopted = await adopt(kew.id, [fern.id, moss.id], '"1"');

    expect(adopted.status).toBe(200);
    expect(adopted.body).toStrictEqual({
      garden: { id: kew.id, name: 'Kew', plantedAt: expect.any(String) as string },
      shrubs: [
        { id: fern.id, name: 'Fern', gardenId: kew.id },
        { id: moss.id, name: 'Moss', gardenId: kew.id },
      ],
    });
    expect((await events()).slice(before)).toStrictEqual([
      { type: 'fixture_garden.updated', payload: adopted.body.garden as unknown },
      { type: 'fixture_shrub.updated', payload: { id: fern.id, name: 'Fern', gardenId: kew.id } },
      { type: 'fixture_shrub.updated', payload: { id: moss.id, name: 'Moss', gardenId: kew.id } },
    ]);
    const { rows } = await testApp.db.query<{ version: number }>(
      'SELECT version FROM fixture_gardens WHERE id = $1',
      [kew.id],
    );
    expect(rows).toStrictEqual([{ version: 2 }]);
  });

  it('rolls the whole transaction back, events included, when one change fails', async () => {
    const kew = await garden('Kew');
    const wisley = await garden('Wisley');
    const fern = await shrub('Fern', wisley.id);
    const moss = await shrub('Moss');
    const shrubsBefore = await shrubRows();
    const eventsBefore = await events();

    // The second shrub does not exist: the garden and the first shrub had changed already.
    const missing = await adopt(kew.id, [fern.id, moss.id + 100]);
    expect(missing.status).toBe(404);
    expect(missing.body).toStrictEqual({ error: 404, message: `No shrub has the id ${moss.id + 100}` });
    // Nothing of it was kept: the garden is still at version 1, and takes the second shrub alone.
    await adopt(kew.id, [moss.id], '"1"').expect(200);
    // Now it has moved on from version 1: a stale If-Match changes nothing.
    await adopt(kew.id, [fern.id], '"1"').expect(412);

    expect(await shrubRows()).toStrictEqual(
      shrubsBefore.map((row) =>
        row.id === String(moss.id) ? { ...row, garden_id: String(kew.id), version: 2 } : row,
      ),
    );
    const added = (await events()).slice(eventsBefore.length).map(({ type }) => type);
    expect(added).toStrictEqual(['fixture_garden.updated', 'fixture_shrub.updated']);
  });

  it('pages by name through indexes that end with the id, ties in id order, the next page in the Link', async () => {
    const kew = await garden('Kew');
    const names = ['Yew', 'Ash', 'Fern', 'Ash', 'Moss', 'Box', 'Ash'];
    const created = [];
    for (const [index, name] of names.entries()) {
      created.push(await shrub(name, index % 2 === 0 ? kew.id : undefined));
    }
    const expected = created
      .map((one, index) => ({ ...one, name: names[index] }))
      .sort((a, b) => (a.name === b.name ? a.id - b.id : a.name < b.name ? -1 : 1));

    const walk = async (first: string) => {
      const seen: unknown[] = [];
      for (let next: string | undefined = first; next !== undefined;) {
        const page: request.Response = await api().get(next).set(AUTH).expect(200);
        seen.push(...(page.body as unknown[]));
        next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];
      }
      return seen;
    };

    expect(await walk('/fixture-shrubs?sort=name&limit=2')).toStrictEqual(expected);
    expect(await walk(`/fixture-gardens/${kew.id}/shrubs?sort=name&limit=3`)).toStrictEqual(
      expected.filter((one) => one.gardenId === kew.id),
    );
    const notACursor = await api().get('/fixture-shrubs?sort=name&after=bm90IGEgY3Vyc29y').set(AUTH);
    expect(notACursor.body).toStrictEqual({
      error: 400,
      message: 'The cursor is not one of this service’s next-page links',
    });
  });
});

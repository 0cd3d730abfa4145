import request from 'supertest';
import { DataSource } from 'typeorm';

import {
  encodeListCursor,
  type ListQuery,
  listRequest,
  type SortValue,
} from '../src/core/lists/list-request.js';
import { PLANTS_LIST } from '../src/plants/dto/list-plants.query.js';
import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';
import { SqlRecorder, sqlRecord } from './support/sql-record.js';
import { undeliveredWebhookEnv } from './support/webhook-receiver.js';
import { FixtureGardensModule } from './fixtures/gardens/gardens.module.js';

type Call = (api: ReturnType<typeof request>) => Promise<unknown>;

/** The cursor of the plants' list page after a row with these sort values. */
function cursorAfter(query: ListQuery, values: SortValue[]): string {
  return encodeListCursor(listRequest(PLANTS_LIST, query), values);
}

/**
 * The SQL each request sends, kept beside its resource for review, as Immich
 * keeps `server/src/queries/*.sql`: a change to an entity, a relation, a
 * query or TypeORM itself shows in review as a change of SQL. Each request
 * is made once, alone, with webhook subscribers, so that the events'
 * statements are there too.
 */
describe('the SQL each request sends', () => {
  const testApp = useTestApp(async () => ({ ...(await undeliveredWebhookEnv()), LOG_LEVEL: 'error' }), {
    imports: [FixtureGardensModule],
  });
  let recorder: SqlRecorder;

  /** Makes the requests in turn, each with the statements it sent. */
  const record = async (calls: ReadonlyArray<readonly [string, Call]>) => {
    const sections: Array<[string, string[]]> = [];
    for (const [name, call] of calls) {
      recorder.take();
      await call(request(testApp.server));
      sections.push([name, recorder.take()]);
    }
    return sections;
  };

  beforeAll(() => {
    recorder = new SqlRecorder(testApp.app.get(DataSource));
  });

  it('of the plants is src/plants/plants.sql', async () => {
    const sections = await record([
      [
        'POST /plants',
        (api) => api.post('/plants').set(AUTH).send({ id: 1, name: 'Fern', tag: 'pteridophyte' }),
      ],
      [
        'POST /plants: the same plant again',
        (api) => api.post('/plants').set(AUTH).send({ id: 1, name: 'Fern', tag: 'pteridophyte' }),
      ],
      ['GET /plants/{id}', (api) => api.get('/plants/1').set(AUTH)],
      ['GET /plants?limit=20', (api) => api.get('/plants?limit=20').set(AUTH)],
      [
        'GET /plants?limit=20&after=0&tag=pteridophyte',
        (api) => api.get('/plants?limit=20&after=0&tag=pteridophyte').set(AUTH),
      ],
      [
        'GET /plants?sort=-name&name[prefix]=F&tag[ne]=aroid',
        (api) => api.get('/plants?sort=-name&name[prefix]=F&tag[ne]=aroid').set(AUTH),
      ],
      [
        'GET /plants?after=0&name[contains]=ern with Prefer: count=exact',
        (api) => api.get('/plants?after=0&name[contains]=ern').set(AUTH).set('Prefer', 'count=exact'),
      ],
      [
        'GET /plants?sort=tag&tag[contains]=ter&cursor=… (its values, then the plants without a tag) with Prefer: count=estimated',
        (api) =>
          api
            .get(
              `/plants?sort=tag&tag[contains]=ter&cursor=${cursorAfter({ sort: 'tag', 'tag[contains]': 'ter' }, ['aroid', '0'])}`,
            )
            .set(AUTH)
            .set('Prefer', 'count=estimated'),
      ],
      [
        'PATCH /plants/{id} with If-Match',
        (api) => api.patch('/plants/1').set(AUTH).set('If-Match', '"1"').send({ tag: null }),
      ],
      ['PATCH /plants/{id}: nothing to change', (api) => api.patch('/plants/1').set(AUTH).send({})],
      [
        'DELETE /plants/{id} with a stale If-Match',
        (api) => api.delete('/plants/1').set(AUTH).set('If-Match', '"1"'),
      ],
      ['DELETE /plants/{id}', (api) => api.delete('/plants/1').set(AUTH)],
    ]);

    const { stored, recorded } = await sqlRecord(
      new URL('../src/plants/plants.sql', import.meta.url),
      sections,
    );

    expect(stored).toBe(recorded);
  });

  it('of the gardens and their shrubs, a relation among them, is test/fixtures/gardens/gardens.sql', async () => {
    const ids = { garden: 0, shrub: 0 };
    const after = Buffer.from('["Ash","0"]').toString('base64url');
    const sections = await record([
      [
        'POST /fixture-gardens',
        async (api) =>
          (ids.garden = (
            (await api.post('/fixture-gardens').set(AUTH).send({ name: 'Kew' })).body as { id: number }
          ).id),
      ],
      [
        'POST /fixture-shrubs',
        async (api) =>
          (ids.shrub = (
            (await api.post('/fixture-shrubs').set(AUTH).send({ name: 'Fern', gardenId: ids.garden }))
              .body as {
              id: number;
            }
          ).id),
      ],
      ['GET /fixture-shrubs/{id}', (api) => api.get(`/fixture-shrubs/${ids.shrub}`).set(AUTH)],
      [
        'GET /fixture-shrubs?sort=name&limit=1',
        (api) => api.get('/fixture-shrubs?sort=name&limit=1').set(AUTH),
      ],
      [
        'GET /fixture-gardens/{id}/shrubs?sort=name&after=…',
        (api) => api.get(`/fixture-gardens/${ids.garden}/shrubs?sort=name&after=${after}`).set(AUTH),
      ],
      [
        'PATCH /fixture-shrubs/{id}',
        (api) => api.patch(`/fixture-shrubs/${ids.shrub}`).set(AUTH).send({ gardenId: null }),
      ],
      [
        'POST /fixture-gardens/{id}/adopt with If-Match',
        (api) =>
          api
            .post(`/fixture-gardens/${ids.garden}/adopt`)
            .set(AUTH)
            .set('If-Match', '"1"')
            .send({ shrubIds: [ids.shrub] }),
      ],
      [
        'DELETE /fixture-gardens/{id}: it still has shrubs',
        (api) => api.delete(`/fixture-gardens/${ids.garden}`).set(AUTH),
      ],
    ]);

    const { stored, recorded } = await sqlRecord(
      new URL('./fixtures/gardens/gardens.sql', import.meta.url),
      sections,
    );

    expect(stored).toBe(recorded);
  });
});

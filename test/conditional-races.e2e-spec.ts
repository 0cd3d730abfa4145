import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { plantRow } from './support/database.js';
import { useTestApp } from './support/app.js';

/** Rounds of each race: each round a new plant, two changes sent at once with the same If-Match. */
const ROUNDS = 40;

/**
 * The version check of If-Match is one statement in PostgreSQL, so two
 * changes sent at once against the same version cannot both win: whichever
 * commits second finds the row changed (or gone) and changes nothing.
 */
describe('changes sent at once with the same If-Match', () => {
  const testApp = useTestApp();

  async function stored(): Promise<number> {
    const plant = newPlant();
    await request(testApp.server).post('/plants').set(AUTH).send(plant).expect(200);
    return plant.id as number;
  }

  const patch = (id: number, name: string) =>
    request(testApp.server)
      .patch(`/plants/${id}`)
      .set(AUTH)
      .set({ 'Content-Type': 'application/merge-patch+json', 'If-Match': '"1"' })
      .send(JSON.stringify({ name }));

  const remove = (id: number) =>
    request(testApp.server).delete(`/plants/${id}`).set(AUTH).set('If-Match', '"1"');

  async function versionOf(id: number): Promise<number | undefined> {
    const { rows } = await testApp.db.query<{ version: number }>('SELECT version FROM plants WHERE id = $1', [
      id,
    ]);
    return rows[0]?.version;
  }

  it('lets exactly one of two PATCHes win, and answers the other 412', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = await stored();

      const [first, second] = await Promise.all([patch(id, 'First'), patch(id, 'Second')]);

      expect([first.status, second.status].sort()).toStrictEqual([200, 412]);
      const winner = first.status === 200 ? first : second;
      const loser = first.status === 200 ? second : first;
      expect(winner.headers.etag).toBe('"2"');
      expect(loser.body).toMatchObject({ error: 412 });
      await expect(plantRow(testApp.db, id)).resolves.toMatchObject({ name: winner.body.name });
      await expect(versionOf(id)).resolves.toBe(2);
    }
  });

  it('lets exactly one of a PATCH and a DELETE win; the other changes nothing', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = await stored();

      const [patched, deleted] = await Promise.all([patch(id, 'Patched'), remove(id)]);

      expect([patched.status === 200, deleted.status === 204].filter(Boolean)).toHaveLength(1);
      if (patched.status === 200) {
        // The update committed first: the delete found version 2, not 1.
        expect(deleted.status).toBe(412);
        await expect(versionOf(id)).resolves.toBe(2);
      } else {
        expect(deleted.status).toBe(204);
        // The delete committed first: the update found the row gone, at the version it asked for
        // if its statement began before the delete committed (412), or no row at all (404).
        expect([412, 404]).toContain(patched.status);
        await expect(plantRow(testApp.db, id)).resolves.toBeUndefined();
      }
    }
  });
});

import { sqlSnapshot } from '../core/database/sql-snapshot.js';
import { PLANT_ACCESS } from './plants.module.js';

describe('the plants’ SQL', () => {
  it('is queries/plants.sql, as the entity generates it (UPDATE_SQL_SNAPSHOTS=1 rewrites the file)', async () => {
    const { stored, generated } = await sqlSnapshot(new URL('./queries/plants.sql', import.meta.url), [
      PLANT_ACCESS,
    ]);

    expect(stored).toBe(generated);
  });
});

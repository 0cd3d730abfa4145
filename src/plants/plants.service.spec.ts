import type { DataSource } from 'typeorm';

import { PlantIdTakenError } from './plant.errors.js';
import { PlantsService } from './plants.service.js';

type Row = { created: boolean; name: string; tag: string | null };

/** A data source whose one query answers the given results in turn, and records its parameters. */
function dataSourceAnswering(...results: Row[][]) {
  const calls: unknown[][] = [];
  const dataSource = {
    query: (_sql: string, parameters: unknown[]) => {
      calls.push(parameters);
      return Promise.resolve(results.shift() ?? []);
    },
  } as unknown as DataSource;
  return { dataSource, calls };
}

describe('PlantsService.create', () => {
  it('answers the stored plant, and passes the id to PostgreSQL as exact digits', async () => {
    const { dataSource, calls } = dataSourceAnswering([{ created: true, name: 'Fern', tag: null }]);

    await expect(
      new PlantsService(dataSource).create({ id: 9223372036854775807n, name: 'Fern' }),
    ).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(calls).toStrictEqual([['9223372036854775807', 'Fern', null]]);
  });

  it('treats the same plant sent again as a success (idempotent retry)', async () => {
    const { dataSource } = dataSourceAnswering([{ created: false, name: 'Fern', tag: 'pteridophyte' }]);

    await expect(
      new PlantsService(dataSource).create({ id: 1, name: 'Fern', tag: 'pteridophyte' }),
    ).resolves.toStrictEqual({ name: 'Fern', tag: 'pteridophyte' });
  });

  it.each([
    [
      { id: 1, name: 'Moss' },
      { created: false, name: 'Fern', tag: null },
    ],
    [
      { id: 1, name: 'Fern', tag: 'x' },
      { created: false, name: 'Fern', tag: null },
    ],
    [
      { id: 1, name: 'Fern' },
      { created: false, name: 'Fern', tag: 'x' },
    ],
  ])('refuses %p when the id holds %p', async (newPlant, stored) => {
    const { dataSource } = dataSourceAnswering([stored]);

    await expect(new PlantsService(dataSource).create(newPlant)).rejects.toBeInstanceOf(PlantIdTakenError);
  });

  it('asks again when a concurrent create committed after its snapshot, and sees that row', async () => {
    const { dataSource, calls } = dataSourceAnswering([], [{ created: false, name: 'Fern', tag: null }]);

    await expect(new PlantsService(dataSource).create({ id: 1, name: 'Fern' })).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(calls).toHaveLength(2);
  });

  it('gives up, with an error rather than a wrong answer, if the row never shows', async () => {
    const { dataSource, calls } = dataSourceAnswering([], [], [], []);

    await expect(new PlantsService(dataSource).create({ id: 1, name: 'Fern' })).rejects.toThrow(
      'neither inserted nor found',
    );
    expect(calls).toHaveLength(3);
  });
});

import type { DataSource } from 'typeorm';

import type { DatabaseConfig } from '../config/database.config.js';
import type { Metrics } from '../metrics/metrics.js';
import { PlantIdTakenError } from './plant.errors.js';
import { PlantsService } from './plants.service.js';

type Row = { id: string; name: string; tag: string | null; created: boolean };

/** A service over a pool whose one statement answers `rows`, recording what it was sent. */
function serviceAnswering(rows: Row[]) {
  const sent: unknown[][] = [];
  let created = 0;
  const dataSource = {
    driver: {
      master: {
        query: (config: { values: unknown[] }) => {
          sent.push(config.values);
          return Promise.resolve({ rows });
        },
      },
    },
  } as unknown as DataSource;
  const metrics = { plantsCreated: { inc: () => created++ } } as unknown as Metrics;
  const config = { writeConcurrency: 1, writeBatchSize: 10 } as DatabaseConfig;
  return { service: new PlantsService(dataSource, config, metrics), sent, created: () => created };
}

describe('PlantsService.create', () => {
  it('answers the stored plant, counts it, and sends the id as exact digits', async () => {
    const { service, sent, created } = serviceAnswering([
      { id: '9223372036854775807', name: 'Fern', tag: null, created: true },
    ]);

    await expect(service.create({ id: 9223372036854775807n, name: 'Fern' })).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(sent).toStrictEqual([[['9223372036854775807'], ['Fern'], [null]]]);
    expect(created()).toBe(1);
  });

  it('treats the same plant sent again as a success, and does not count it', async () => {
    const { service, created } = serviceAnswering([
      { id: '1', name: 'Fern', tag: 'pteridophyte', created: false },
    ]);

    await expect(service.create({ id: 1, name: 'Fern', tag: 'pteridophyte' })).resolves.toStrictEqual({
      name: 'Fern',
      tag: 'pteridophyte',
    });
    expect(created()).toBe(0);
  });

  it.each([
    [
      { id: 1, name: 'Moss' },
      { name: 'Fern', tag: null },
    ],
    [
      { id: 1, name: 'Fern', tag: 'x' },
      { name: 'Fern', tag: null },
    ],
    [
      { id: 1, name: 'Fern' },
      { name: 'Fern', tag: 'x' },
    ],
  ])('refuses %p when the id holds %p', async (newPlant, stored) => {
    const { service } = serviceAnswering([{ id: '1', ...stored, created: false }]);

    await expect(service.create(newPlant)).rejects.toBeInstanceOf(PlantIdTakenError);
  });
});

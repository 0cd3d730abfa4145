import type { DataSource, Repository } from 'typeorm';

import type { DatabaseConfig } from '../core/config/database.config.js';
import type { WebhookConfig } from '../core/config/webhook.config.js';
import type { WebhookDispatcher } from '../core/webhooks/webhook-dispatcher.js';
import type { Plant } from './plant.entity.js';
import { PlantIdTakenError } from './plant.errors.js';
import type { PlantsMetrics } from './plants.metrics.js';
import { PlantsService } from './plants.service.js';

type Row = { id: string; name: string; tag: string | null; created: boolean };

/** A service over a pool that finds the given rows (inserted now, or stored before), recording what it sent. */
function serviceAnswering(rows: Row[]) {
  const sent: unknown[][] = [];
  let created = 0;
  const dataSource = {
    driver: {
      master: {
        query: (config: { name: string; values: unknown[] }) => {
          sent.push(config.values);
          const answer =
            config.name === 'plants-insert-batch'
              ? rows.filter((row) => row.created).map(({ id }) => ({ id }))
              : rows.filter((row) => !row.created).map(({ id, name, tag }) => ({ id, name, tag }));
          return Promise.resolve({ rows: answer });
        },
      },
    },
  } as unknown as DataSource;
  const metrics = { created: { inc: () => created++ } } as unknown as PlantsMetrics;
  const database = { writeConcurrency: 1, writeBatchSize: 10 } as DatabaseConfig;
  const webhooks = { urls: [] as string[] } as WebhookConfig;
  const dispatcher = { nudge: () => undefined } as unknown as WebhookDispatcher;
  const repository = {} as Repository<Plant>;
  return {
    service: new PlantsService(dataSource, repository, database, webhooks, metrics, dispatcher),
    sent,
    created: () => created,
  };
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

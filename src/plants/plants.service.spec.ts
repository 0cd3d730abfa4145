import { Test } from '@nestjs/testing';

import { PlantIdTakenError } from './plant.errors.js';
import { PlantsMetrics } from './plants.metrics.js';
import { type CreateOutcome, type NewPlantRow, PlantsRepository } from './plants.repository.js';
import { PlantsService } from './plants.service.js';

/** The service, its repository answering each create with the given outcome and recording what it was given. */
async function serviceAnswering(outcome: (plant: NewPlantRow) => CreateOutcome) {
  const written: NewPlantRow[] = [];
  let created = 0;
  const module = await Test.createTestingModule({
    providers: [
      PlantsService,
      {
        provide: PlantsRepository,
        useValue: {
          create: (plant: NewPlantRow) => {
            written.push(plant);
            return Promise.resolve(outcome(plant));
          },
        },
      },
      { provide: PlantsMetrics, useValue: { created: { inc: () => created++ } } },
    ],
  }).compile();
  return { service: module.get(PlantsService), written, created: () => created };
}

describe('PlantsService.create', () => {
  it('answers the stored plant, counts it, and writes the id as exact digits', async () => {
    const { service, written, created } = await serviceAnswering((plant) => ({
      created: true,
      stored: plant,
    }));

    await expect(service.create({ id: 9223372036854775807n, name: 'Fern' })).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(written).toStrictEqual([{ id: '9223372036854775807', name: 'Fern' }]);
    expect(created()).toBe(1);
  });

  it('treats the same plant sent again as a success, and does not count it', async () => {
    const { service, created } = await serviceAnswering(() => ({
      created: false,
      stored: { id: '1', name: 'Fern', tag: 'pteridophyte' },
    }));

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
    const { service } = await serviceAnswering(() => ({ created: false, stored: { id: '1', ...stored } }));

    await expect(service.create(newPlant)).rejects.toBeInstanceOf(PlantIdTakenError);
  });
});

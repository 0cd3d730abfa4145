import { PlantIdTakenError } from './plant.errors.js';
import type { PlantsMetrics } from './plants.metrics.js';
import type { CreateOutcome, PlantRecord, PlantsRepository } from './plants.repository.js';
import { PlantsService } from './plants.service.js';

/** A service whose repository answers each create with the given outcome, recording what it was given. */
function serviceAnswering(outcome: (plant: PlantRecord) => CreateOutcome) {
  const written: PlantRecord[] = [];
  let created = 0;
  const plants = {
    create: (plant: PlantRecord) => {
      written.push(plant);
      return Promise.resolve(outcome(plant));
    },
  } as PlantsRepository;
  const metrics = { created: { inc: () => created++ } } as unknown as PlantsMetrics;
  const service = new PlantsService(plants, metrics);
  return { service, written, created: () => created };
}

describe('PlantsService.create', () => {
  it('answers the stored plant, counts it, and writes the id as exact digits', async () => {
    const { service, written, created } = serviceAnswering((plant) => ({ created: true, stored: plant }));

    await expect(service.create({ id: 9223372036854775807n, name: 'Fern' })).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(written).toStrictEqual([{ id: '9223372036854775807', name: 'Fern', tag: null }]);
    expect(created()).toBe(1);
  });

  it('treats the same plant sent again as a success, and does not count it', async () => {
    const { service, created } = serviceAnswering(() => ({
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
    const { service } = serviceAnswering(() => ({ created: false, stored: { id: '1', ...stored } }));

    await expect(service.create(newPlant)).rejects.toBeInstanceOf(PlantIdTakenError);
  });
});
